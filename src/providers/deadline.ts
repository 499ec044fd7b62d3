/**
 * A time limit as an AbortSignal, built on a plain timer that is cleared when the work ends.
 *
 * Not `AbortSignal.any([..., AbortSignal.timeout(ms)])`: on Node 20 the inner timeout signal can be
 * garbage-collected while the combined one still waits, and then it never fires (a Node bug fixed
 * in later releases). Here the timer's closure holds the controller, so the limit always fires.
 */
interface Deadline {
  /** Aborts when the time is up (reason: a DOMException named "TimeoutError") or when the parent aborts (its reason). */
  readonly signal: AbortSignal;
  /** Stops the timer and unlinks from the parent. Call it in a `finally` once the guarded work is over. */
  clear(): void;
}

/** Starts a limit of `ms`, tied to `parent` (a caller's cancellation, or an enclosing limit). */
export function startDeadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent?.reason);
  const timer = setTimeout(() => controller.abort(timeoutReason(ms)), ms);
  const clear = (): void => {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
  };
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  // Once aborted, the timer and the parent's listener have nothing left to do.
  controller.signal.addEventListener("abort", clear, { once: true });
  return { signal: controller.signal, clear };
}

/** The same reason `AbortSignal.timeout` gives, so callers can tell a limit from a cancellation. */
function timeoutReason(ms: number): DOMException {
  return new DOMException(`The operation did not finish within ${ms} ms.`, "TimeoutError");
}

export function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof DOMException && reason.name === "TimeoutError";
}
