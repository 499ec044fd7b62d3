/**
 * The account a call is being answered for, attached to the call's AbortSignal: the queues every
 * caller shares (compute workers, the image model, image decoding, third-party providers) take
 * turns by it (lane-queue.ts), read from the signal each step is handed anyway. Not
 * AsyncLocalStorage: on Node 20 it installs promise hooks that tax every promise in the process
 * (storage/sqlite-database.ts). Set where a call's work starts (rpc/answer-for.ts) and on signals
 * derived from the call's (moderate.ts, images/index.ts); work without one shares the lane "".
 */
const lanes = new WeakMap<AbortSignal, string>();

/** Marks `signal` as the signal of `account`'s call; a derived signal takes its parent's lane (laneOf). */
export function markLane(signal: AbortSignal | undefined, lane: string): void {
  if (signal && lane !== "") lanes.set(signal, lane);
}

/** The lane of the call `signal` belongs to, or "" for none. */
export function laneOf(signal: AbortSignal | undefined): string {
  return signal ? (lanes.get(signal) ?? "") : "";
}
