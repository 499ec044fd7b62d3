import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { HttpSignatureHeaders } from "../signing/http-signature.js";

/**
 * The JSON route's rendering of a Moderate answer: proto field names, every field present.
 * The one place that decides it, for the route and for compute workers that render ahead.
 */
export function moderateAnswerJson(answer: ModerateResponse): JsonValue {
  return toJson(ModerateResponseSchema, answer, { useProtoFieldName: true, alwaysEmitImplicit: true });
}

/** An answer's JSON bytes and their RFC 9421 signature headers (see signJsonBody). */
export interface SignedJsonAnswer {
  bytes: Uint8Array;
  headers: HttpSignatureHeaders;
}

// Keyed by the answer message itself: an interceptor that replaced the message would leave
// no entry, and the route would render and sign the replacement itself. Interceptors must
// not change an answer in place (none does; see src/interceptors/chain.ts).
const signedAhead = new WeakMap<ModerateResponse, SignedJsonAnswer>();

/** Records that `answer` was already rendered and signed (by a compute worker) as `signed`. */
export function attachSignedJson(answer: ModerateResponse, signed: SignedJsonAnswer): void {
  signedAhead.set(answer, signed);
}

/** The rendering signed ahead for this answer, if any (a 200 to the request it was made for). */
export function signedJsonFor(answer: ModerateResponse): SignedJsonAnswer | undefined {
  return signedAhead.get(answer);
}
