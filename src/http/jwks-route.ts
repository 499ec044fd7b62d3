import type { FastifyInstance } from "fastify";
import { toJwks, type SigningKeyRing } from "../signing/key-ring.js";
import { sendPublicDocument } from "./public-document.js";

const JWKS_PATH = "/.well-known/jwks.json";

/**
 * GET /.well-known/jwks.json: the public keys that verify response signatures. Public, no
 * API key. Cached briefly (with an ETag, so a refetch of the same keys is a 304): after a
 * rotation, verifiers that meet an unknown keyid refetch.
 */
export function registerJwksRoute(app: FastifyInstance, deps: { keys: Pick<SigningKeyRing, "publishedKeys"> }): void {
  app.get(JWKS_PATH, async (request, reply) => sendPublicDocument(request, reply, JSON.stringify(toJwks(deps.keys))));
}
