import { ApiError } from "./api-error.js";

/**
 * The answer to a body the held-bodies bound refused (base/held-bodies.ts): "busy", 503 with
 * Retry-After 1 (others' bodies fill the bound now); "never", 413 (this body alone is past it).
 * One place for both routes that read bodies: the JSON routes (http/read-body.ts) and RPC
 * (rpc/guard-request-body.ts).
 */
export function heldBodiesRefusal(taken: "busy" | "never"): ApiError {
  return taken === "busy"
    ? new ApiError("service_unavailable", "The server holds as many request bodies as its memory bound allows; retry shortly.", { headers: { "retry-after": "1" } })
    : new ApiError("payload_too_large", "The request body is larger than this server's bound on request bodies held at once (HELD_BODIES_MAX_MB).");
}
