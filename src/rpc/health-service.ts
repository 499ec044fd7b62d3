import type { ServiceImpl } from "@connectrpc/connect";
import { ApiError, toConnectError } from "../errors/api-error.js";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";

/**
 * grpc.health.v1. "" means the whole server; each served service is listed by its full name.
 * Statuses are fixed at SERVING while the process accepts calls: readiness of dependencies
 * is answered over HTTP at /readyz. When shutdown starts (`stopping`), every Watch stream is sent
 * NOT_SERVING and ends cleanly: a load balancer watching learns at once, and the streams no
 * longer hold the shutdown for its whole grace period, to be cut without a status.
 */
export function createHealthServiceImpl(serviceNames: readonly string[], isServing: () => boolean, stopping?: AbortSignal): ServiceImpl<typeof Health> {
  const known = new Set(["", ...serviceNames]);
  const statusOf = () => (isServing() ? Status.SERVING : Status.NOT_SERVING);
  return {
    check(req) {
      if (!known.has(req.service)) {
        // The API's code (x-error-code, ErrorDetail), as every other RPC error carries it.
        throw toConnectError(new ApiError("not_found", `unknown service "${req.service.slice(0, 200)}"`));
      }
      return { status: statusOf() };
    },
    list() {
      return { statuses: Object.fromEntries([...known].map((name) => [name, { status: statusOf() }])) };
    },
    async *watch(req, context) {
      const first = known.has(req.service) ? statusOf() : Status.SERVICE_UNKNOWN;
      yield { status: first };
      // Statuses do not change while serving; hold the stream open until the caller leaves or
      // shutdown starts.
      const ended = await new Promise<"left" | "stopping">((resolve) => {
        if (context.signal.aborted) return resolve("left");
        if (stopping?.aborted) return resolve("stopping");
        const left = () => done("left");
        const stop = () => done("stopping");
        const done = (why: "left" | "stopping") => {
          context.signal.removeEventListener("abort", left);
          stopping?.removeEventListener("abort", stop);
          resolve(why);
        };
        context.signal.addEventListener("abort", left, { once: true });
        stopping?.addEventListener("abort", stop, { once: true });
      });
      if (ended === "stopping" && first === Status.SERVING) yield { status: Status.NOT_SERVING };
    },
  };
}
