import fs from "node:fs";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../app/app-context.js";
import { charsetOf, isUtf8OrUnset, mediaTypeOf } from "../base/media-type.js";
import { registerAccountPages } from "./account-pages.js";
import { registerPolicyPages } from "./policy-pages.js";
import { expiredAuthForm, registerAuthRoutes } from "./auth-routes.js";
import { csrfMatches, sameOrigin } from "./csrf.js";
import { errorPage } from "./pages/auth-pages.js";
import { ApiError, ERROR_CODE_HEADER, toApiError } from "../errors/api-error.js";
import { fastifyCodeOf } from "../errors/fastify-codes.js";
import { expectedOrigin, loadState, stateOf } from "./request-state.js";
import { parseFormBody } from "./form-body.js";
import { SECURITY_HEADERS, sendRefusalPage } from "./replies.js";

// Read once at start-up; there is no build step.
const ASSETS: Record<string, { type: string; body: string }> = {
  "app.css": { type: "text/css; charset=utf-8", body: fs.readFileSync(new URL("./assets/app.css", import.meta.url), "utf8") },
  "app.js": { type: "text/javascript; charset=utf-8", body: fs.readFileSync(new URL("./assets/app.js", import.meta.url), "utf8") },
};

/**
 * The dashboard: server-rendered pages under /dashboard. Every POST is checked twice before
 * any handler runs: its Origin must be ours, and its form must carry the CSRF token of the
 * caller's session (or pre-session, for sign-up and log-in).
 */
export async function registerDashboardRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 16 * 1024 }, (_req, body, done) => {
      try {
        done(null, parseFormBody(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });

    // Browsers ask for it beside every page: no icon, and no API JSON 404 (a console error each time).
    scope.get("/favicon.ico", async (_request, reply) => reply.code(204).header("cache-control", "public, max-age=86400").send());

    scope.get("/dashboard/assets/:name", async (request, reply) => {
      const name = (request.params as { name: string }).name;
      // Own names only: "__proto__" or "toString" found Object.prototype's and made a 500.
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      // Its code too, as every refusal has one (logs and metrics read it from X-Error-Code; it was "").
      if (!asset) return reply.code(404).header(ERROR_CODE_HEADER, "not_found").type("text/plain").send("Not found");
      return reply.header("cache-control", "no-cache").header("x-content-type-options", "nosniff").type(asset.type).send(asset.body);
    });

    scope.register(async (pages) => {
      pages.addHook("onRequest", async (request, reply) => {
        reply.headers({ ...SECURITY_HEADERS, "cache-control": "no-store" });
        // Forms only, refused before any body is read: the app's JSON parser (and its 70 MB
        // limit, sized for images) would otherwise parse a JSON post, whose fields need not be
        // strings ({"email": 1} reached the handlers and made a 500).
        if (request.method === "POST") {
          const refusal = formRefusal(request.headers["content-type"], request.headers["content-encoding"]);
          if (refusal) return sendRefusalPage(reply, 415, "unsupported_media_type", refusal);
        }
        // The session (or pre-session) from the cookies, before any body is read: a route that
        // takes a large form (the policy page) refuses a caller without a session unread.
        await loadState(ctx, request, reply);
      });
      // A refusal is a page in the browser tab, not the API's JSON: a database outage (503 +
      // Retry-After), a form over its size limit (413: the log-in form, or a pasted policy list,
      // was replaced by raw JSON). An unexpected error goes on to the app's handler (logged, 500).
      pages.setErrorHandler((error, _request, reply) => {
        const framework = fastifyCodeOf(error);
        const apiError = framework ? new ApiError(framework, (error as Error).message) : toApiError(error);
        if (apiError.code === "internal_error") throw error;
        const [title, message] = apiError.code === "storage_unavailable"
          ? ["Temporarily unavailable", "The dashboard cannot reach its database right now. Try again in a moment."]
          : ["Request refused", apiError.message];
        return sendRefusalPage(reply, apiError.httpStatus, apiError.code, message, { title, headers: apiError.headers });
      });
      pages.addHook("preHandler", async (request, reply) => {
        const state = stateOf(request);
        if (request.method !== "POST") return;
        if (!sameOrigin({ origin: request.headers.origin, referer: request.headers.referer }, expectedOrigin(request, ctx.config.dashboardOrigin))) {
          return forbidden(reply, errorPage(state.csrf, "Request refused", "This request did not come from the dashboard's own pages."));
        }
        const body = request.body as Record<string, unknown> | undefined;
        if (!csrfMatches(body?._csrf, state.csrf)) {
          // Log-in and sign-up: the form again, with a fresh token and the typed email (still 403, forbidden).
          const again = expiredAuthForm(request.routeOptions.url, (body ?? {}) as Record<string, string | undefined>, state.csrf, ctx.config.signup);
          return forbidden(reply, again ?? errorPage(state.csrf, "Request refused", "The form has expired. Go back, reload the page and try again."));
        }
      });
      registerAuthRoutes(pages, ctx);
      registerAccountPages(pages, ctx);
      registerPolicyPages(pages, ctx);
      // Any other dashboard address is a page too, with the pages' headers, whatever the method:
      // it was the API's JSON 404 (no CSP, no no-store, the path echoed) in a browser tab.
      // A page asked for with a method it does not take (PUT /dashboard/keys) is 405 with the
      // methods it does take, not "no such page".
      pages.route({
        method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        url: "/dashboard/*",
        handler: async (request, reply) => {
          const allowed = pageMethods(request.server, request.url.split("?")[0]!);
          if (allowed.length > 0) {
            return sendRefusalPage(reply, 405, "method_not_allowed", `This page takes ${allowed.join(", ")} only.`, { headers: { allow: allowed.join(", ") } });
          }
          return sendRefusalPage(reply, 404, "not_found", "There is no such page on the dashboard.", { title: "Not found" });
        },
      });
    });
  });
}

/** The methods a page of its own serves at `path` (HEAD with GET); none for an address only the catch-all answers. */
function pageMethods(app: FastifyInstance, path: string): string[] {
  const served = ["GET", "POST"].filter((method) => {
    const route = app.findRoute({ method: method as "GET", url: path });
    return route !== null && !("*" in (route.params as Record<string, string>));
  });
  return served.includes("GET") ? ["GET", "HEAD", ...served.filter((m) => m !== "GET")] : served;
}

/**
 * Why a POST is not a form as the dashboard's pages send one, or undefined: a urlencoded body, in
 * UTF-8, not compressed. A gzip-compressed form was read as its raw bytes (and refused as an
 * expired form), one labelled `br` over plain bytes was taken, and charset=latin1 was decoded as
 * UTF-8 (a key named "café" stored as "caf\ufffd"); found by an audit.
 */
function formRefusal(contentType: string | undefined, contentEncoding: string | undefined): string | undefined {
  if (mediaTypeOf(contentType) !== "application/x-www-form-urlencoded") return "The dashboard's forms are sent as application/x-www-form-urlencoded.";
  if (!isUtf8OrUnset(charsetOf(contentType))) return "The dashboard's forms are read as UTF-8 only.";
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding && encoding !== "identity") return "The dashboard's forms are read uncompressed (no Content-Encoding).";
  return undefined;
}

/** A form post refused with 403 `forbidden`: `page` says why (or is the form again, to send afresh). */
function forbidden(reply: FastifyReply, page: string): FastifyReply {
  return reply.code(403).header(ERROR_CODE_HEADER, "forbidden").type("text/html; charset=utf-8").send(page);
}
