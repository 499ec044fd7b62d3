import type { FastifyReply } from "fastify";
import { ERROR_CODE_HEADER, type ErrorCode } from "../errors/api-error.js";
import { errorPage } from "./pages/auth-pages.js";

/** Every dashboard answer's headers (set by the pages' hook, and by sendRefusalPage before it). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Only our own script and styles; fetch only to this origin (the playground calls /v1/moderate).
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
};

/** Whether a request's URL is a dashboard address (its refusals are pages, not the API's JSON). */
export function isDashboardUrl(url: string): boolean {
  return url === "/dashboard" || url.startsWith("/dashboard/") || url.startsWith("/dashboard?");
}

/**
 * A refusal as a page with the pages' headers and its code in X-Error-Code: the dashboard's
 * refusals, also one given before the pages' own hooks ran (a malformed URL, refused before
 * routing), which was the API's JSON in a browser tab.
 */
export function sendRefusalPage(reply: FastifyReply, status: number, code: ErrorCode, message: string, options: { title?: string; headers?: Record<string, string> } = {}): FastifyReply {
  return reply.code(status).headers({ ...SECURITY_HEADERS, "cache-control": "no-store", ...options.headers }).header(ERROR_CODE_HEADER, code)
    .type("text/html; charset=utf-8").send(errorPage("", options.title ?? "Request refused", message));
}

/**
 * How every dashboard route answers: an HTML page, or a redirect after a form. A page that
 * refuses the form names its `code` in X-Error-Code, as the API does: request logs and metrics
 * read the code from there (a brute-forced log-in's 429s were counted with no code).
 */
export function sendPage(reply: FastifyReply, html: string, status = 200, code?: ErrorCode): FastifyReply {
  if (code) reply.header(ERROR_CODE_HEADER, code);
  return reply.code(status).type("text/html; charset=utf-8").send(html);
}

/** A 303 so the browser follows with GET, and reloading the result never re-posts a form. */
export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header("location", location).send();
}
