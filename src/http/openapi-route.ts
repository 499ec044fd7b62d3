import type { FastifyInstance } from "fastify";
import { buildOpenApiDocument } from "./openapi/openapi-document.js";

const OPENAPI_PATH = "/openapi.json";

/** GET /openapi.json: the OpenAPI 3.1 document of the HTTP JSON routes (src/http/openapi). Public. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  const body = JSON.stringify(buildOpenApiDocument());
  app.get(OPENAPI_PATH, async (_request, reply) => reply.header("cache-control", "public, max-age=300").type("application/json").send(body));
}
