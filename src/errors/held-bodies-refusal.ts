import { ApiError } from "./api-error.js";

/**
 * The answer to a body the held-bodies bound refused (base/held-bodies.ts): "busy" and
 * "owner_busy", 503 with Retry-After 1 (bodies fill the bound, or the account's share of it, now);
 * "never", 413 (this body alone is past it).
 * One place for both routes that read bodies: the JSON routes (http/read-body.ts) and RPC
 * (rpc/guard-request-body.ts).
 */
export function heldBodiesRefusal(taken: "busy" | "owner_busy" | "never"): ApiError {
  if (taken === "never") return new ApiError("payload_too_large", "The request body is larger than this server's bound on request bodies held at once (HELD_BODIES_MAX_MB).");
  const message = taken === "busy"
    ? "The server holds as many request bodies as its memory bound allows; retry shortly."
    : "This account's requests still arriving fill its share of the server's bound on request bodies held at once; retry once some have finished.";
  return new ApiError("service_unavailable", message, { headers: { "retry-after": "1" } });
}
