import type { Readable } from "node:stream";
import type { BodyHold } from "../base/held-bodies.js";
import { heldBodiesRefusal } from "../errors/held-bodies-refusal.js";
import { ApiError } from "../errors/api-error.js";
import { BodyBuffer } from "../base/body-buffer.js";

/** The caller closed the connection before its whole body arrived: there is no one to answer. */
export class CallerHungUpError extends Error {
  override readonly name = "CallerHungUpError";
}

/**
 * Reads a request body into memory (a large one announced by its Content-Length straight into
 * shared memory: body-buffer.ts), refusing (without buffering more) once it passes `limit`.
 * With `keep`, a body longer than that is still read to its end (within `limit`) but not held:
 * the promise resolves to undefined. Plain "data"/"end" listeners rather than `for await`: the
 * async iterator costs a few promises and an end-of-stream watcher per request, visible on the
 * hottest route. With `hold`, each kept chunk is counted against the process's bound on held
 * bodies (base/held-bodies.ts), and the body refused with 503 service_unavailable past it.
 */
export function readBody(
  stream: Readable, limit: number, declaredLength: number | undefined, keep = limit, hold?: BodyHold, stop?: AbortSignal,
): Promise<Uint8Array | undefined> {
  const tooLarge = () => new ApiError("payload_too_large", `The request body is larger than ${limit} bytes, more than ten maximal items need.`);
  if (declaredLength !== undefined && declaredLength > limit) return Promise.reject(tooLarge());
  if (stop?.aborted) return Promise.reject(stopReason(stop));
  // Gone already (the caller hung up while its key was looked up): no event would ever come.
  if (stream.destroyed || stream.readableAborted) return Promise.reject(new CallerHungUpError("the connection closed before the request body was read"));
  // Undefined once the body is past `keep`: read on to its end, but no longer held.
  let body: BodyBuffer | undefined = new BodyBuffer(hold);
  if (declaredLength !== undefined && declaredLength <= keep) {
    const taken = body.expect(declaredLength);
    if (taken !== "taken") return Promise.reject(heldBodiesRefusal(taken));
  }
  return new Promise((resolve, reject) => {
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading but keep the socket: the route answers 413 with Connection: close.
        stopListening();
        stream.pause();
        reject(tooLarge());
        return;
      }
      if (size > keep) body = undefined;
      const taken = body === undefined ? "taken" : body.push(chunk);
      if (taken !== "taken") {
        stopListening();
        stream.pause();
        reject(heldBodiesRefusal(taken));
      }
    };
    // At the end only the "error" listener goes, so that a later error is not swallowed here:
    // no "data" follows "end", "end" comes once, and "close" (which follows) finds the body read.
    // Four removals per request were a visible cost.
    let ended = false;
    const onEnd = () => {
      ended = true;
      stream.off("error", onError);
      stop?.removeEventListener("abort", onStop);
      resolve(body?.bytes());
    };
    // The shutdown's grace ran out while the body still arrived (a slow upload): refused with the
    // stop's reason (503 service_unavailable, Retry-After) rather than cut with no answer (audit,
    // session 52); the route's answer then closes the connection, the body unread.
    const onStop = () => {
      stopListening();
      stream.pause();
      reject(stopReason(stop!));
    };
    // The caller hung up mid-body: "error" (aborted) and/or "close" without "end".
    const onError = (cause?: Error) => {
      stopListening();
      reject(new CallerHungUpError("the connection closed before the whole request body arrived", { cause }));
    };
    const onClose = () => {
      if (!ended) onError();
    };
    const stopListening = () => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
      stop?.removeEventListener("abort", onStop);
    };
    stop?.addEventListener("abort", onStop);
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}

/** Why a stopped read is refused: the stop's own ApiError (server.ts gives one), else a 503. */
function stopReason(stop: AbortSignal): Error {
  return stop.reason instanceof ApiError ? stop.reason : new ApiError("service_unavailable", "The service is shutting down; retry the call.", { headers: { "retry-after": "1" } });
}
