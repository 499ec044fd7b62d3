import type { FastifyReply } from "fastify";

/** Headers that describe one HTTP message and must not be copied from RPC metadata. */
const HOP_HEADERS = new Set(["content-type", "content-length", "content-encoding", "transfer-encoding", "connection"]);

/**
 * Sends a JSON body with extra headers (e.g. rate limit, signature) copied from RPC metadata.
 * `body` may be bytes already serialized (and signed): they are sent exactly as given.
 */
export function sendJson(reply: FastifyReply, status: number, body: unknown, headerSets: Headers[]): FastifyReply {
  for (const headers of headerSets) {
    headers.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) reply.header(name, value);
    });
  }
  const payload = body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : JSON.stringify(body);
  return reply.code(status).header("content-type", "application/json; charset=utf-8").send(payload);
}
