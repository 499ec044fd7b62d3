import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The public documents (JWKS, OpenAPI) may be cached for five minutes by anyone. */
const PUBLIC_DOCUMENT_CACHING = "public, max-age=300";

/** A strong entity tag for a document: its SHA-256, shortened (collisions do not matter at 128 bits). */
export function entityTagOf(body: string): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}

/**
 * Whether an If-None-Match header matches the tag (RFC 9110 13.1.2): "*", or any tag in its list
 * compared weakly (W/ ignored). A tag may hold commas, so the list is read tag by tag, not split.
 */
function ifNoneMatchHits(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === tag) return true;
  return false;
}

/**
 * Sends a public JSON document with an ETag, and 304 Not Modified to a client (or cache) that
 * already holds this version. JWKS verifiers refetch every few minutes and after a rotation; a
 * conditional request then costs a status line instead of the document.
 */
export function sendPublicDocument(request: FastifyRequest, reply: FastifyReply, body: string, tag: string = entityTagOf(body)): FastifyReply {
  reply.header("cache-control", PUBLIC_DOCUMENT_CACHING).header("etag", tag);
  if (ifNoneMatchHits(request.headers["if-none-match"], tag)) return reply.code(304).send();
  return reply.type("application/json").send(body);
}
