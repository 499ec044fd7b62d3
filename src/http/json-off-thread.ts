import type { ComputePool } from "../workers/compute-pool.js";
import { parseJsonBody } from "../moderation/json-body-value.js";

/**
 * Parses a JSON route's body: a JSON value, or a promise of one. Refusals are parseJsonBody's
 * ApiErrors either way.
 */
export type JsonBodyReader = (bytes: Uint8Array) => unknown;

/**
 * A body at least this long is parsed in a compute worker. Below it the hop costs more than it
 * saves (a 1 MiB body parses in about 3 ms); above it the event loop would be held for every
 * caller of the process: ten 4.8 MB images (65 MB of JSON) held it 115 ms to parse and 110 ms to
 * decode as UTF-8, measured by `npm run bench:large-bodies`.
 */
export const OFF_THREAD_JSON_BYTES = 1024 * 1024;

/** The JSON routes' parser: large bodies go to the compute workers when there are any. */
export function createJsonBodyReader(pool: Pick<ComputePool, "parseJson"> | undefined): JsonBodyReader {
  if (!pool) return parseJsonBody;
  return (bytes) => (bytes.length >= OFF_THREAD_JSON_BYTES ? pool.parseJson(bytes) : parseJsonBody(bytes));
}

/**
 * A route's parse step: `read` then the route's own checks of the value (`shape`), without a
 * promise turn when the value came at once (the usual small body).
 */
export function parseWith<T>(read: JsonBodyReader, shape: (value: unknown) => T): (bytes: Uint8Array) => T | Promise<T> {
  return (bytes) => {
    const value = read(bytes);
    // A JSON value is never a promise: a promise means the value is still being parsed.
    return value instanceof Promise ? value.then(shape) : shape(value);
  };
}
