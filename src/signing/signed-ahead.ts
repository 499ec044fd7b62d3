import type { ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { SignedJson } from "./sign-outcome.js";

/**
 * Answers that a compute worker already rendered and signed (src/workers/worker-answers.ts),
 * keyed by the answer message itself. Whoever would sign the answer (the JSON route, the
 * signing interceptor) uses the signature made ahead only when it is handed that very
 * message: an interceptor that replaced the message leaves no entry, and the replacement is
 * signed as usual. Interceptors must not change an answer in place (none does; see
 * src/interceptors/chain.ts).
 */

/** A JSON-route answer's text and its RFC 9421 signature headers (see signOutcome). */
export type SignedJsonAnswer = SignedJson;

const jsonAhead = new WeakMap<ModerateResponse, SignedJsonAnswer>();
/** RPC signature metadata (see signOutcome) for the answer's canonical bytes. */
const rpcAhead = new WeakMap<ModerateResponse, Record<string, string>>();

export function attachSignedJson(answer: ModerateResponse, signed: SignedJsonAnswer): void {
  jsonAhead.set(answer, signed);
}

/** The rendering signed ahead for this answer, if any (a 200 to the request it was made for). */
export function signedJsonFor(answer: ModerateResponse): SignedJsonAnswer | undefined {
  return jsonAhead.get(answer);
}

/** `answer` must already have its maps sorted (sortMapsInPlace), as the metadata signs those bytes. */
export function attachSignedRpc(answer: ModerateResponse, metadata: Record<string, string>): void {
  rpcAhead.set(answer, metadata);
}

/** The RPC signature metadata made ahead for this answer, if any. */
export function signedRpcFor(answer: unknown): Record<string, string> | undefined {
  return typeof answer === "object" && answer !== null ? rpcAhead.get(answer as ModerateResponse) : undefined;
}
