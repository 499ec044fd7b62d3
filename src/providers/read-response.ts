import { isTimeoutReason } from "./deadline.js";
import { ProviderError } from "./provider-error.js";

/** How errors name the provider to the caller: "The vision provider ...", "The text provider ...". */
export interface ProviderWording {
  /** e.g. "vision provider" */
  name: string;
  /** The message when the caller (not a time limit) cancelled the call. */
  cancelled: string;
}

/** A failed fetch (or body read) as a ProviderError: a time limit and the network may be retried, a caller's cancel not. */
export function fetchFailure(error: unknown, signal: AbortSignal | undefined, wording: ProviderWording): ProviderError {
  if (signal?.aborted) {
    const timedOut = isTimeoutReason(signal.reason);
    return new ProviderError("timeout", timedOut ? `The ${wording.name} did not answer in time.` : wording.cancelled, {
      retryable: timedOut,
      cause: error,
    });
  }
  return new ProviderError("network", `The ${wording.name} could not be reached.`, { retryable: true, cause: error });
}

/** Reads at most `limit` bytes of the body, so a misbehaving server cannot exhaust memory. */
export async function readCapped(response: Response, limit: number, signal: AbortSignal | undefined, wording: ProviderWording): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw new ProviderError("malformed", `The ${wording.name}'s response exceeds ${limit} bytes.`, { retryable: false });
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw fetchFailure(error, signal, wording);
  }
  return Buffer.concat(chunks).toString("utf8");
}
