import type { ServiceImpl } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";

/**
 * grpc.health.v1. "" means the whole server; each served service is listed by its full name.
 * Statuses are fixed at SERVING while the process accepts calls: readiness of dependencies
 * is answered over HTTP at /readyz.
 */
export function createHealthServiceImpl(serviceNames: readonly string[], isServing: () => boolean): ServiceImpl<typeof Health> {
  const known = new Set(["", ...serviceNames]);
  const statusOf = () => (isServing() ? Status.SERVING : Status.NOT_SERVING);
  return {
    check(req) {
      if (!known.has(req.service)) throw new ConnectError(`unknown service "${req.service}"`, Code.NotFound);
      return { status: statusOf() };
    },
    list() {
      return { statuses: Object.fromEntries([...known].map((name) => [name, { status: statusOf() }])) };
    },
    async *watch(req, context) {
      if (!known.has(req.service)) {
        yield { status: Status.SERVICE_UNKNOWN };
      } else {
        yield { status: statusOf() };
      }
      // Statuses do not change while serving; hold the stream open until the caller leaves.
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) return resolve();
        context.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    },
  };
}
