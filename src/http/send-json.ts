import type { FastifyReply } from "fastify";
import { signJsonBody } from "../signing/json-body-signature.js";
import type { Signer } from "../signing/signer.js";
import type { SignedJsonAnswer } from "../signing/signed-ahead.js";

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

/**
 * Serializes `body` once, signs those bytes (RFC 9421, bound to `requestBody`; empty when the
 * request had none or it was never read) and sends them with the signature headers.
 */
export async function sendSignedJson(
  reply: FastifyReply,
  signing: { signer: Signer; nowMs: number; requestBody: Uint8Array | undefined },
  status: number,
  body: unknown,
  headerSets: Headers[],
): Promise<FastifyReply> {
  const signed = await signJsonBody(signing.signer, { status, body, requestBody: signing.requestBody, nowMs: signing.nowMs });
  return sendJsonSignedAhead(reply, status, signed, headerSets);
}

/** Sends bytes that signJsonBody already signed (here or in a compute worker) with their signature headers. */
export function sendJsonSignedAhead(reply: FastifyReply, status: number, signed: SignedJsonAnswer, headerSets: Headers[]): FastifyReply {
  reply.headers(signed.headers);
  return sendJson(reply, status, signed.bytes, headerSets);
}
