import { ApiError } from "../errors/api-error.js";
import { createConcurrencyLimiter, LimiterFullError } from "../providers/concurrency-limiter.js";
import { laneOf } from "../threads/caller-lane.js";
import { imageWorkSignal } from "./call-signal.js";

/**
 * Frames decoded at once, by every call of the process together (the embedded model's decode and
 * the render for deep analysis): one fewer than libuv's pool of four threads, which log-in's
 * scrypt and file work share. libvips cannot stop a decode once started, and every frame of a
 * call went to the pool at once: a call already answered (another item refused, its deadline
 * past, its caller gone) kept the pool busy, and a 32×32 image sent meanwhile waited 5 to 59 s
 * (found by an audit). Frames wait their turn here instead, where a stopped call's leave undecoded.
 */
const DECODE_SLOTS = 3;
/** Frames waiting for a slot, past which a call is told to retry (ten items of four frames, 25 calls). */
const DECODE_QUEUE = 1000;

const slots = createConcurrencyLimiter({ max: DECODE_SLOTS, maxQueue: DECODE_QUEUE });

/** Runs one frame's decode in its turn; a stopped call's (`signal` aborted) leaves the queue with its reason. */
export async function decodeInTurn<T>(decode: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await slots.run(decode, signal && imageWorkSignal(signal), laneOf(signal));
  } catch (error) {
    if (error instanceof LimiterFullError) {
      throw new ApiError("service_unavailable", "Too many images are waiting to be decoded; retry shortly.", { cause: error, headers: { "retry-after": "1" } });
    }
    throw error;
  }
}
