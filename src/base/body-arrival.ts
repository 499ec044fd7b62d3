/**
 * How a route tells the listener that no live key is behind a request still waiting for its body,
 * so that the body gets the short time such requests get (edge/http2-request-timeout.ts sets the
 * timers; the routes, in lower layers, only know the raw request). In base so both can reach it.
 */
const shortenings = new WeakMap<object, () => void>();

/** The listener: how to shorten this raw request's wait for its body (until it is forgotten). */
export function onUntrustedArrival(rawRequest: object, shorten: () => void): void {
  shortenings.set(rawRequest, shorten);
}

/** The listener: the body arrived or the stream closed; nothing left to shorten. */
export function forgetArrival(rawRequest: object): void {
  shortenings.delete(rawRequest);
}

/**
 * A route: no live key is behind this request. An HTTP/2 request still waiting for its body gets
 * the short arrival time from its start at most; anything else (HTTP/1.1, whose connection Node's
 * requestTimeout bounds; a body already arrived) is left alone.
 */
export function limitBodyArrival(rawRequest: object): void {
  const shorten = shortenings.get(rawRequest);
  if (!shorten) return;
  shortenings.delete(rawRequest);
  shorten();
}

/** Whether a request carries no API key header at all (X-API-Key or Authorization): its body gets the short arrival time from the start. */
export function carriesNoKey(headers: { "x-api-key"?: unknown; authorization?: unknown }): boolean {
  return headers["x-api-key"] === undefined && headers.authorization === undefined;
}
