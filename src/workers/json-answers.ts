import { create } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateRequest, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import { newId } from "../accounts/ids.js";
import { attachSignedJson } from "../http/moderate-answer-json.js";
import { assembleAnswer, textItemResult } from "../moderation/moderate.js";
import { validateModerateRequest } from "../moderation/validate-request.js";
import type { ComputePool } from "./compute-pool.js";
import { decodeVerdict, type EncodedVerdict } from "./verdict-codec.js";

/**
 * Answers a JSON-route Moderate call of text items only with ONE compute-worker job that
 * classifies, assembles, renders and signs, instead of a classify job and, after the chain, a
 * sign job. That saves a round trip between threads and takes the rendering and signing
 * work off the event loop. The answer message still goes back through the interceptor
 * chain as usual; the route sends the bytes signed ahead only if the chain returns that very
 * message (signedJsonFor).
 */
export type JsonAnswerer = (request: ModerateRequest, requestBody: Uint8Array, nowMs: number) => Promise<ModerateResponse>;

export function createJsonAnswerer(pool: ComputePool, model: string): JsonAnswerer {
  return async (request, requestBody, nowMs) => {
    // The same checks, with the same errors, that createModerator makes first.
    const items = validateModerateRequest(request);
    const texts = items.map((item) => (item.type === "text" ? item.text : unreachable()));
    const answerId = newId("modr");
    // A copy: the body may be a view into a larger buffer, all of which a message would clone.
    const result = await pool.answerJson({ texts, answerId, requestBody: new Uint8Array(requestBody), nowMs });
    const answer = create(ModerateResponseSchema, assembleAnswerFromEncoded(answerId, model, result.verdicts, result.combined));
    attachSignedJson(answer, { bytes: result.bytes, headers: result.headers });
    return answer;
  };
}

/** Whether a call can be answered by a JSON answerer: text items only (images need the event loop's pipeline). */
export function isTextOnly(request: ModerateRequest): boolean {
  return request.input.every((item) => item.type === "text");
}

/** The answer from encoded verdicts; the worker and the parent both assemble it this way. */
export function assembleAnswerFromEncoded(id: string, model: string, verdicts: EncodedVerdict[], combined: EncodedVerdict | undefined) {
  const results = verdicts.map((verdict, index) => textItemResult(index, decodeVerdict(verdict), model));
  return assembleAnswer(id, model, results, combined && decodeVerdict(combined));
}

function unreachable(): never {
  throw new Error("a JSON answerer was given a call with non-text items");
}
