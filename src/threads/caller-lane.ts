import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The account a call is being answered for, while its work runs: the queues every caller shares
 * (compute workers, the image model, image decoding, third-party providers) take turns by it
 * (lane-queue.ts), without each step down the call passing it on. Set where a call's work starts
 * (rpc/answer-for.ts); work outside a call has none and shares one lane.
 */
const lanes = new AsyncLocalStorage<string>();

export function inCallerLane<T>(account: string, work: () => T): T {
  return lanes.run(account, work);
}

/** The lane of the call whose work is running, or "" outside one. */
export function callerLane(): string {
  return lanes.getStore() ?? "";
}
