import type { FastifyInstance } from "fastify";
import type { Metrics } from "../observability/metrics.js";

const METRICS_PATH = "/metrics";

/**
 * GET /metrics: Prometheus exposition text. Served on the API listeners unless METRICS_PORT
 * gives it a listener of its own (src/observability/metrics-server.ts), e.g. one that only the
 * monitoring network reaches. No API key: Prometheus scrapers do not send one.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get(METRICS_PATH, async (_request, reply) => reply.header("cache-control", "no-store").type(metrics.contentType).send(await metrics.render()));
}
