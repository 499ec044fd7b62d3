import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ApiError } from "../errors/api-error.js";

/**
 * Honours the caller's deadline (gRPC and gRPC-Web grpc-timeout, Connect connect-timeout-ms):
 * when it passes before the answer is ready, the call is answered deadline_exceeded at once,
 * signed like any error, and the work's signal is aborted (image decoding and the vision
 * provider stop; CPU-bound text scoring runs out). Connect arms the deadline with a plain timer
 * (no AbortSignal.timeout, which Node 20 can garbage-collect) and aborts the call's signal with
 * DeadlineExceeded; it does not itself stop a handler that ignores the signal.
 * Calls without a deadline (the JSON route has none) cost one header lookup.
 */
export function createDeadlineInterceptor(): Interceptor {
  return (next) => (req) => {
    if (req.header.get("grpc-timeout") === null && req.header.get("connect-timeout-ms") === null) return next(req);
    return beforeDeadline(req.signal, next(req));
  };
}

async function beforeDeadline<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  let onAbort = () => {};
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => {
      // Other aborts (the caller left, shutdown) are not ours to answer.
      if (ConnectError.from(signal.reason).code === Code.DeadlineExceeded) reject(new ApiError("deadline_exceeded", DEADLINE_PASSED));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

const DEADLINE_PASSED = "The call's deadline (grpc-timeout or connect-timeout-ms) passed before the answer was ready.";
