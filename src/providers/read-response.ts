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
async function readCapped(response: Response, limit: number, signal: AbortSignal | undefined, wording: ProviderWording): Promise<string> {
  const { bytes, whole } = await readUpTo(response, limit, signal, wording);
  if (!whole) throw new ProviderError("malformed", `The ${wording.name}'s response exceeds ${limit} bytes.`, { retryable: false });
  return bytes.toString("utf8");
}

/** The body until its end or until it passes `limit` bytes (the rest is not read); `whole`: it ended first. */
async function readUpTo(response: Response, limit: number, signal: AbortSignal | undefined, wording: ProviderWording): Promise<{ bytes: Buffer; whole: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), whole: true };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks), whole: true };
      chunks.push(value);
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        return { bytes: Buffer.concat(chunks), whole: false };
      }
    }
  } catch (error) {
    throw fetchFailure(error, signal, wording);
  }
}

/** Of an error answer's body, this much is read for its error code. */
const ERROR_BODY_READ = 4096;
/** A Retry-After passed on to callers is at most an hour: a date years ahead is no advice. */
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * The body of a 2xx answer (read whole, up to `limit`). Any other status is a ProviderError
 * "http" that keeps the status and Retry-After whatever the body's size: only its head is read.
 * (A 503 with 2 MiB of HTML had been read as over the limit: malformed, not retried, its
 * Retry-After dropped, and the caller told of "an invalid verdict".)
 */
export async function readAnswer(response: Response, limit: number, signal: AbortSignal | undefined, wording: ProviderWording): Promise<string> {
  if (response.ok) return readCapped(response, limit, signal, wording);
  const code = errorCodeOf((await readUpTo(response, ERROR_BODY_READ, signal, wording)).bytes.toString("utf8", 0, ERROR_BODY_READ));
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  throw new ProviderError("http", `The ${wording.name} answered HTTP ${response.status}${code ? ` (${code})` : ""}.`, {
    status: response.status,
    retryable: response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500,
    answered: INPUT_REFUSED.has(response.status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/**
 * Statuses that say the request, not the provider, was at fault ("maximum context length
 * exceeded" is a 400 at vLLM and OpenAI): the provider is up, so its circuit does not count them.
 * Counted, one tenant's five long texts opened the circuit and every tenant's second opinion was
 * dropped for 30 s (found by an audit). 401, 403 and 404 still count: our key or model is wrong.
 */
const INPUT_REFUSED = new Set([400, 413, 422]);

/**
 * The error's code and type from an OpenAI-style body ({"error":{"code","type"}}), when they are
 * plain identifiers. Not its message, nor the body: providers echo the input there ("...\"input\":
 * \"my private message\"..."), and this message is logged.
 */
function errorCodeOf(body: string): string | undefined {
  let error: unknown;
  try {
    error = (JSON.parse(body) as { error?: unknown }).error;
  } catch {
    return undefined;
  }
  if (typeof error !== "object" || error === null) return undefined;
  const { code, type } = error as { code?: unknown; type?: unknown };
  const words = [code, type].filter((w): w is string => typeof w === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(w));
  return words.length > 0 ? [...new Set(words)].join(", ") : undefined;
}

/** Retry-After as seconds or an HTTP date, in milliseconds, at most MAX_RETRY_AFTER_MS. */
function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Math.min(MAX_RETRY_AFTER_MS, Number(value.trim()) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}
