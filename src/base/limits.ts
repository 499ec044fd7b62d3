/** The spec's limits, in one place. */
export const MAX_ITEMS = 10;
export const MAX_TEXT_CODE_POINTS = 10_000;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * Largest body worth reading: ten maximal images as base64 data URIs (4/3 of 5 MiB each,
 * plus a generous allowance for the data URI prefix and JSON framing).
 */
/**
 * Most bytes of a body held for a caller without a live key, on the JSON routes: enough to bind
 * its refusal's signature to the bytes received (hashed, never parsed); a longer body is read and
 * dropped (held whole, 40 keyless calls of 60 MB kept about 1 GB until their 401s). The RPC routes
 * hold none: their refusals are bound to a request message, and none is decoded without a key.
 */
export const UNAUTHENTICATED_BODY_KEEP = 64 * 1024;

export const MAX_REQUEST_BYTES = MAX_ITEMS * (Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 1024) + 64 * 1024;
