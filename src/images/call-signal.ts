import { setMaxListeners } from "node:events";
import { laneOf, markLane } from "../threads/caller-lane.js";

/** Each call signal's image signal (imageWorkSignal), made once; and the signals made here. */
const derived = new WeakMap<AbortSignal, AbortSignal>();
const made = new WeakSet<AbortSignal>();

/**
 * Listeners one call's image work may hold at once: ten items' frames waiting to be decoded (16
 * sampled at most each) and their model jobs stay far below; more would be a leak worth a warning.
 */
const MAX_LISTENERS = 1000;

/**
 * A signal that aborts with the call's `signal`, in its lane, for all of the call's image work to
 * listen to: each waiting frame and model job listening to the call's own printed Node's
 * MaxListenersExceededWarning for every call of ten images (past ten listeners; found by an audit).
 * The call's signal gets one listener; this one, the images' alone, may hold as many as they need.
 */
export function imageWorkSignal(signal: AbortSignal): AbortSignal {
  if (made.has(signal)) return signal;
  const known = derived.get(signal);
  if (known) return known;
  const controller = new AbortController();
  const images = controller.signal;
  setMaxListeners(MAX_LISTENERS, images);
  markLane(images, laneOf(signal));
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  made.add(images);
  derived.set(signal, images);
  return images;
}
