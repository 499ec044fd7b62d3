/** Names of the headers (HTTP) and metadata keys (gRPC/Connect) that carry a response signature. */
export const SIGNATURE_HEADER = "signature";
export const SIGNATURE_INPUT_HEADER = "signature-input";
/** RFC 9530 digest of the HTTP response content (JSON route only). */
export const CONTENT_DIGEST_HEADER = "content-digest";
/** Digest of the caller's request input; binds the verdict to the content that was judged. */
export const REQUEST_DIGEST_HEADER = "moderation-request-digest";
/** RPC only: digest of the canonical response message bytes, or of the error message. */
export const RESPONSE_DIGEST_HEADER = "moderation-response-digest";
/** RPC only: the gRPC status code as a decimal number, "0" on success. */
export const RPC_STATUS_HEADER = "moderation-status";
/**
 * What was called: a JSON route's path ("/v1/moderate") or an RPC's method path
 * ("/moderation.v1.ModerationService/Moderate"). Binds an answer to the endpoint that gave it: a
 * /v1/moderations answer (no top-level `flagged`) cannot pass for a /v1/moderate one.
 */
export const ROUTE_HEADER = "moderation-route";
/**
 * The account whose live key made the call; absent when there was none (a refusal before
 * authentication). Binds an answer, and the account's policy that shaped it, to who asked: the
 * same text judged for another account (another policy) cannot pass for this account's answer.
 */
export const ACCOUNT_HEADER = "moderation-account";
/** Label of our signature in the Signature and Signature-Input dictionaries. */
export const SIGNATURE_LABEL = "sig1";
/** RFC 9421 algorithm name; the JWK equivalent is kty OKP, crv Ed25519. */
export const SIGNATURE_ALGORITHM = "ed25519";

/** Components a JSON-route response signature covers, in this order (then the scope's: scope.ts). */
export const HTTP_SIGNED_COMPONENTS = ["@status", "content-type", CONTENT_DIGEST_HEADER, REQUEST_DIGEST_HEADER] as const;
/** Components every RPC signature covers (errors add x-error-code after the status; then the scope's: scope.ts). */
export const RPC_SIGNED_COMPONENTS = [RPC_STATUS_HEADER, RESPONSE_DIGEST_HEADER, REQUEST_DIGEST_HEADER] as const;
