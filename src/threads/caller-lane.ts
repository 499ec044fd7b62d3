/**
 * The account a call is being answered for, attached to the call's AbortSignal: the queues every
 * caller shares (compute workers, the image model, image decoding, third-party providers) take
 * turns by it (lane-queue.ts), read from the signal each step is handed anyway. Not
 * AsyncLocalStorage: on Node 20 it installs promise hooks that tax every promise in the process
 * (storage/sqlite-database.ts). Set where a call's work starts (withLane: rpc/answer-for.ts, rpc/policy-service.ts) and on signals
 * derived from the call's (anySignal: moderate.ts, images/index.ts); work without one shares the lane "".
 */
const lanes = new WeakMap<AbortSignal, string>();
/** Signals many calls share (the JSON route's one that never aborts): none can carry one call's lane. */
const shared = new WeakSet<AbortSignal>();

/** Registers `signal` as shared by many calls, and returns it. */
export function shareSignal(signal: AbortSignal): AbortSignal {
  shared.add(signal);
  return signal;
}

/**
 * The signal to hand `account`'s call's work: its own, marked with the account's lane; or, where
 * the call was given a shared signal, one of the call's own that never aborts either. Marking the
 * shared one gave every call on it the lane of whichever call marked it last (found by a reread).
 */
export function withLane(signal: AbortSignal, account: string): AbortSignal {
  const own = shared.has(signal) ? new AbortController().signal : signal;
  markLane(own, account);
  return own;
}

/**
 * A signal that aborts when `parent` (the call's, if any) or any of `others` does, in the call's
 * lane. Derive a call's signals with this, not AbortSignal.any: a derived signal not marked puts
 * its work in the shared lane "", with no error and no failing test.
 */
export function anySignal(parent: AbortSignal | undefined, ...others: AbortSignal[]): AbortSignal {
  const signals = parent ? [parent, ...others] : others;
  const derived = signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
  markLane(derived, laneOf(parent));
  return derived;
}

/** Marks `signal` as the signal of `account`'s call; a derived signal takes its parent's lane (anySignal). */
export function markLane(signal: AbortSignal | undefined, lane: string): void {
  if (signal && lane !== "") lanes.set(signal, lane);
}

/** The lane of the call `signal` belongs to, or "" for none. */
export function laneOf(signal: AbortSignal | undefined): string {
  return signal ? (lanes.get(signal) ?? "") : "";
}
