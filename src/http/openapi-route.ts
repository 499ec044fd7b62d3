import type { FastifyInstance } from "fastify";
import { buildOpenApiDocument } from "./openapi/openapi-document.js";
import { entityTagOf, sendPublicDocument } from "./public-document.js";

const OPENAPI_PATH = "/openapi.json";

/** GET /openapi.json: the OpenAPI 3.1 document of the HTTP JSON routes (src/http/openapi). Public. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  const body = JSON.stringify(buildOpenApiDocument());
  const tag = entityTagOf(body);
  app.get(OPENAPI_PATH, async (request, reply) => sendPublicDocument(request, reply, body, tag));
}
