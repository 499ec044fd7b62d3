import { ApiError, toConnectError } from "../errors/api-error.js";

/**
 * A cap on the streams of one kind open at once in this process (public, long-lived streams:
 * Health.Watch, reflection). A stream past it is refused service_unavailable, Retry-After 5;
 * one ending makes room. Counted from the stream's first read, as Connect starts it at once.
 */
export function limitOpenStreams(max: number, refusal: string) {
  let open = 0;
  return async function* limited<T>(stream: () => AsyncIterable<T>): AsyncGenerator<T> {
    if (open >= max) throw toConnectError(new ApiError("service_unavailable", refusal, { headers: { "retry-after": "5" } }));
    open++;
    try {
      yield* stream();
    } finally {
      open--;
    }
  };
}
