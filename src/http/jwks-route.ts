import type { FastifyInstance } from "fastify";
import { toJwks, type SigningKeyRing } from "../signing/key-ring.js";

const JWKS_PATH = "/.well-known/jwks.json";

/**
 * GET /.well-known/jwks.json: the public keys that verify response signatures. Public, no
 * API key. Cached briefly: after a rotation, verifiers that meet an unknown keyid refetch.
 */
export function registerJwksRoute(app: FastifyInstance, deps: { keys: Pick<SigningKeyRing, "publishedKeys"> }): void {
  app.get(JWKS_PATH, async (_request, reply) => {
    const body = JSON.stringify(toJwks(deps.keys));
    return reply.header("cache-control", "public, max-age=300").type("application/json").send(body);
  });
}
