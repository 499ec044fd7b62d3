import type { ServiceImpl } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Status } from "../../gen/grpc/health/v1/health_pb.js";
import { ApiError, toConnectError } from "../errors/api-error.js";
import { abortedByDeadline } from "../interceptors/deadline.js";
import { limitOpenStreams } from "./open-streams.js";

/** Watch streams open at once in one process: public, and each holds memory (about 65 KB). */
export const MAX_WATCH_STREAMS = 1000;

/**
 * grpc.health.v1. "" means the whole server; each served service is listed by its full name.
 * Statuses are fixed at SERVING while the process accepts calls: readiness of dependencies
 * is answered over HTTP at /readyz. When shutdown starts (`stopping`), every Watch stream is sent
 * NOT_SERVING and ends cleanly: a load balancer watching learns at once, and the streams no
 * longer hold the shutdown for its whole grace period, to be cut without a status.
 */
export function createHealthServiceImpl(serviceNames: readonly string[], isServing: () => boolean, stopping?: AbortSignal): ServiceImpl<typeof Health> {
  const known = new Set(["", ...serviceNames]);
  const limitedWatch = limitOpenStreams(MAX_WATCH_STREAMS, `${MAX_WATCH_STREAMS} Health.Watch streams are open on this server; use Check, or retry later.`);
  const statusOf = () => (isServing() ? Status.SERVING : Status.NOT_SERVING);

  /** The status now; then NOT_SERVING if shutdown starts before the caller leaves. */
  async function* watchStatus(service: string, left: AbortSignal) {
    const first = known.has(service) ? statusOf() : Status.SERVICE_UNKNOWN;
    yield { status: first };
    const ended = await new Promise<"left" | "stopping">((resolve) => {
      if (left.aborted) return resolve("left");
      if (stopping?.aborted) return resolve("stopping");
      const onLeft = () => done("left");
      const onStopping = () => done("stopping");
      const done = (why: "left" | "stopping") => {
        left.removeEventListener("abort", onLeft);
        stopping?.removeEventListener("abort", onStopping);
        resolve(why);
      };
      left.addEventListener("abort", onLeft, { once: true });
      stopping?.addEventListener("abort", onStopping, { once: true });
    });
    if (ended === "stopping" && first === Status.SERVING) yield { status: Status.NOT_SERVING };
    // Connect aborts the call's signal at the caller's deadline too, and leaves the status to the
    // handler: ending normally answered OK to a stream the deadline had ended.
    if (ended === "left" && abortedByDeadline(left)) {
      throw toConnectError(new ApiError("deadline_exceeded", "The Watch call's deadline (grpc-timeout or connect-timeout-ms) passed."));
    }
  }

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
    watch: (req, context) => limitedWatch(() => watchStatus(req.service, context.signal)),
  };
}
