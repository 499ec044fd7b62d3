import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/app-context.js";
import { ERROR_CODE_HEADER, type ErrorCode } from "../errors/api-error.js";
import { noteErrorCode } from "../observability/request-observation.js";

/**
 * /healthz: the process is up (liveness). /readyz: its dependencies answer, so a load
 * balancer should send it traffic (readiness); 503 with the failing checks otherwise.
 */
export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext, isServing: () => boolean): void {
  // Never from a cache: a stored "ready" answered for a replica that is not (found by an audit).
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get("/readyz", async (request, reply) => {
    const checks: Record<string, "ok" | "failing"> = {};
    const check = async (name: string, probe: () => Promise<unknown>) => {
      try {
        await withTimeout(probe(), 1_000);
        checks[name] = "ok";
      } catch {
        checks[name] = "failing";
      }
    };
    await check("database", () => ctx.db.query("SELECT 1 AS one"));
    // Only when failing closed: an open limiter lets traffic through, so a dead Redis does not make it unready.
    if (ctx.config.rateLimit.failureMode === "closed") await check("rate_limiter", () => ctx.rateLimiter.checkHealth());
    // Every accepted call is journaled before it is answered: a journal that cannot be written (a
    // full disk) refuses every call, and readiness said "ready" meanwhile (found by an audit).
    await check("usage_journal", async () => ctx.meter.probeJournal());
    // With every compute worker dead and none started again yet, text calls are refused.
    if (ctx.computeWorkersLive) checks.compute_workers = ctx.computeWorkersLive() > 0 ? "ok" : "failing";
    // Shutting down is named too: the answer was 503 with every check "ok".
    if (!isServing()) checks.serving = "failing";
    const ready = Object.values(checks).every((v) => v === "ok");
    if (!ready) {
      // An error code like every other refusal, for the metrics, the log line and X-Error-Code
      // (they read code=""); the body stays the documented checks (docs/api.md, Health).
      noteErrorCode(request, NOT_READY);
      reply.header(ERROR_CODE_HEADER, NOT_READY);
    }
    reply.header("cache-control", "no-store");
    if (!ready) reply.header("retry-after", "5");
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "unavailable", checks });
  });
}

/** The code of a 503 from /readyz (the API answers with it while shutting down); the body says which checks fail. */
const NOT_READY: ErrorCode = "service_unavailable";

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms);
    promise.then(
      (value) => { clearTimeout(timer); resolve(value); },
      (error: unknown) => { clearTimeout(timer); reject(error instanceof Error ? error : new Error(String(error))); },
    );
  });
}
