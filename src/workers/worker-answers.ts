import { ModerateResponseSchema, type ModerateRequest, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import { newId } from "../accounts/ids.js";
import { parseTextAnswerJson } from "../moderation/moderate-answer-json.js";
import { textAnswerMessage } from "../moderation/text-answer-message.js";
import { validateModerateRequest } from "../moderation/validate-request.js";
import { sortMapsInPlace } from "../signing/canonical-message.js";
import type { SignatureScope } from "../signing/scope.js";
import { attachSignedJson, attachSignedRpc } from "../signing/signed-ahead.js";
import type { ComputePool } from "./compute-pool.js";
import { LazyTextAnswer } from "./lazy-text-answer.js";
import { assembleAnswerFromEncoded } from "./verdict-codec.js";

/**
 * What an answer's signature is bound to, which also says how the answer will be sent: the JSON
 * route's request body (the answer goes as JSON text, signed over those bytes) or an RPC
 * request's canonical bytes (the answer goes as a message, signed over its canonical bytes).
 * The edge states it once per call (signatureBindingKey); a call without one is not answered ahead.
 */
export type SignatureBinding = ({ form: "json"; requestBody: Uint8Array } | { form: "rpc"; requestBytes: Uint8Array }) & {
  /** The route called, which the signature names (signing/scope.ts). */
  route: string;
};

/**
 * Answers a Moderate call of text items only with ONE compute-worker job that classifies,
 * assembles, renders and signs the answer, instead of a classify job and, after the chain, a
 * sign job. That saves a round trip between threads and takes the rendering and signing off the
 * event loop. The answer message still goes back through the interceptor chain as usual; the
 * JSON route and the signing interceptor use the signature made ahead only for that very
 * message (src/signing/signed-ahead.ts).
 */
export interface WorkerAnswerer {
  /**
   * The answer to a call of text items only (isTextOnly; rpc/answer-for.ts decides which calls
   * come here), signed ahead for `binding` and the caller's `account` at `nowMs`.
   */
  answer(request: ModerateRequest, binding: SignatureBinding, nowMs: number, account: string | undefined): Promise<ModerateResponse>;
}

export function createWorkerAnswerer(pool: ComputePool, model: string): WorkerAnswerer {
  /** The same checks, with the same errors, that createModerator makes first; then the texts. */
  const textsOf = (request: ModerateRequest) =>
    validateModerateRequest(request).map((item) => (item.type === "text" ? item.text : unreachable()));

  const json = async (request: ModerateRequest, requestBody: Uint8Array, nowMs: number, scope: SignatureScope) => {
    const texts = textsOf(request);
    const answerId = newId("modr");
    const result = await pool.answerJson({ texts, answerId, requestBody, nowMs, scope });
    // The JSON text renders the answer's parts as assembleAnswer made them, so parsed back it
    // builds the message the route sent. Not fromJsonString: it refuses a span quoting a lone surrogate.
    const answer = new LazyTextAnswer(answerId, model, result.flagged, result.hasCombined, () =>
      textAnswerMessage(parseTextAnswerJson(result.json)), result.hasNotEvaluated);
    attachSignedJson(answer, { json: result.json, byteLength: result.byteLength, headers: result.headers });
    return answer;
  };

  const rpc = async (request: ModerateRequest, requestBytes: Uint8Array, nowMs: number, scope: SignatureScope) => {
    const texts = textsOf(request);
    const answerId = newId("modr");
    const result = await pool.answerRpc({ texts, answerId, requestBytes, nowMs, scope });
    // Sorted as the worker sorted it before signing: these are the bytes that go on the wire.
    const answer = sortMapsInPlace(ModerateResponseSchema, textAnswerMessage(assembleAnswerFromEncoded(answerId, model, result.verdicts, result.combined)));
    attachSignedRpc(answer, result.metadata);
    return answer;
  };

  return {
    answer(request, binding, nowMs, account) {
      const scope = { route: binding.route, account };
      return binding.form === "json" ? json(request, binding.requestBody, nowMs, scope) : rpc(request, binding.requestBytes, nowMs, scope);
    },
  };
}

/** Text items only: what a worker can answer whole (images need the event loop's pipeline). */
export function isTextOnly(request: ModerateRequest): boolean {
  return request.input.every((item) => item.type === "text");
}

function unreachable(): never {
  throw new Error("a worker answerer was given a call with non-text items");
}
