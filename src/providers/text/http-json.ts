import { ProviderError } from "../provider-error.js";
import { fetchFailure, readAnswer, type ProviderWording } from "../read-response.js";

const TEXT: ProviderWording = { name: "text provider", cancelled: "The call to the text provider was cancelled." };

interface PostJsonOptions {
  headers: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Largest response read, in bytes: a misbehaving server cannot exhaust memory. */
  maxResponseBytes: number;
  fetch: typeof fetch;
}

/**
 * One POST of a JSON body to a guard-model provider; the parsed JSON answer, or a ProviderError
 * that says whether a retry may help (timeouts, network, 408/409/429/5xx, garbage: yes).
 */
export async function postJson(url: URL, body: unknown, options: PostJsonOptions): Promise<unknown> {
  let response: Response;
  try {
    response = await options.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...options.headers },
      body: JSON.stringify(body),
      // Not followed, and answered as its status: "error" made it a network failure, retried twice.
      redirect: "manual",
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw fetchFailure(error, options.signal, TEXT);
  }
  const text = await readAnswer(response, options.maxResponseBytes, options.signal, TEXT);
  try {
    return JSON.parse(text);
  } catch (error) {
    // Not `error` as the cause: its message quotes the body, which may echo the caller's text.
    throw malformed(`the response body is not JSON (${(error as Error).name})`);
  }
}

export function malformed(detail: string, cause?: unknown): ProviderError {
  return new ProviderError("malformed", `The text provider's answer is malformed: ${detail}.`, {
    retryable: true,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * A model's answer that came whole but does not read as its verdict (prose where "safe" or "No"
 * belongs): the provider answered, and the text decided, so its circuit does not count it.
 */
export function unreadableVerdict(detail: string): ProviderError {
  return new ProviderError("malformed", `The text provider's answer is malformed: ${detail}.`, { retryable: true, answered: true });
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

