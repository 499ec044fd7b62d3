import { Code, ConnectError, createContextKey, type Interceptor } from "@connectrpc/connect";
import { ApiError } from "../errors/api-error.js";
import { deadlineHeader, timeoutMs } from "./deadline-header.js";

/** When the caller's deadline passes (Date.now() milliseconds); Infinity for a call without one. */
const deadlineAtKey = createContextKey<number>(Number.POSITIVE_INFINITY, { description: "the caller's deadline" });
/**
 * Set when the answer is being counted (metering.ts): from then on it is delivered, late if the
 * deadline passes meanwhile, never refused. With METERING_FSYNC=always the count waits for the
 * journal's fdatasync, and a deadline that passed in that wait refused answers already counted.
 */
const answerCommittedKey = createContextKey<boolean>(false, { description: "the answer is being metered" });

/** Marks the call's answer as counted: its deadline no longer refuses it. */
export function commitAnswer(req: { contextValues: { set(key: typeof answerCommittedKey, value: boolean): unknown } }): void {
  req.contextValues.set(answerCommittedKey, true);
}

/**
 * Honours the caller's deadline (gRPC and gRPC-Web grpc-timeout, Connect connect-timeout-ms):
 * when it passes before the answer is ready, the call is answered deadline_exceeded at once,
 * signed like any error, and the work's signal is aborted (image decoding and the vision
 * provider stop; CPU-bound text scoring runs out). Connect arms the deadline with a plain timer
 * (no AbortSignal.timeout, which Node 20 can garbage-collect) and aborts the call's signal with
 * DeadlineExceeded; it does not itself stop a handler that ignores the signal.
 * Work done on the event loop (WORKER_THREADS=0) keeps that timer from firing until it ends: the
 * metering interceptor refuses a metered answer finished past the deadline (deadlinePassed), at
 * the one point that decides whether it is billed (it was answered 200, and metered, to a caller
 * long gone).
 * Calls without a deadline (the JSON route has none) cost one header lookup.
 */
export function createDeadlineInterceptor(): Interceptor {
  return (next) => (req) => {
    const deadline = deadlineHeader(req.header);
    if (!deadline) return next(req);
    req.contextValues.set(deadlineAtKey, Date.now() + timeoutMs(deadline));
    return beforeDeadline(req.signal, next(req), () => req.contextValues.get(answerCommittedKey));
  };
}

/** Whether the call's deadline time has come, even if a busy event loop kept Connect's timer from firing. */
export function deadlinePassed(req: { contextValues: { get(key: typeof deadlineAtKey): number } }): boolean {
  return Date.now() >= req.contextValues.get(deadlineAtKey);
}

/** Whether Connect aborted this signal because the caller's deadline passed (not a caller gone, not shutdown). */
export function abortedByDeadline(signal: AbortSignal): boolean {
  return signal.aborted && ConnectError.from(signal.reason).code === Code.DeadlineExceeded;
}

async function beforeDeadline<T>(signal: AbortSignal, work: Promise<T>, committed: () => boolean): Promise<T> {
  let onAbort = () => {};
  const expired = new Promise<never>((_, reject) => {
    onAbort = () => {
      // Other aborts (the caller left, shutdown) are not ours to answer; nor is an answer being counted.
      if (abortedByDeadline(signal) && !committed()) reject(deadlineExceeded());
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

/** The refusal of a call whose deadline passed. */
export const deadlineExceeded = (): ApiError => new ApiError("deadline_exceeded", DEADLINE_PASSED);
