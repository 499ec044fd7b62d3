import type { CategoryScore, ModerateResponse, SecondOpinion } from "../../../gen/moderation/v1/moderation_pb.js";
import { OPENAI_CATEGORIES } from "../../classifiers/openai-categories.js";
import type { OpenAiInputShape } from "./openai-request.js";

type InputType = "text" | "image";

interface OpenAiModerationResult {
  flagged: boolean;
  categories: Record<string, boolean>;
  category_scores: Record<string, number>;
  category_applied_input_types: Record<string, InputType[]>;
  /**
   * The service's own field, beside OpenAI's: the strings or parts of this result the text model
   * did not evaluate, wholly or in part (a language it does not cover), as `/v1/moderate` lists
   * them. OpenAI's shape has no place for it, and its zeros would otherwise read as "harmless".
   */
  not_evaluated?: { items: { index: number; reason: string; language: string }[]; combined?: { reason: string; language: string } };
  /**
   * The service's own field: the strings or parts of this result sent to the guard-model provider
   * whose call failed, so that the embedded verdict stands alone (TEXT_PROVIDER_ON_FAILURE=embedded),
   * as `/v1/moderate`'s `second_opinion.seconded: false` says; for an array of parts, `combined`
   * says so of their joined text. Absent when every call answered.
   */
  not_seconded?: { items: { index: number; error_code: string }[]; combined?: { error_code: string } };
}

interface OpenAiModeration {
  id: string;
  model: string;
  /**
   * The service's own field, as on `/v1/moderate`: the account's policy that judged the answer
   * (its flags may differ from the model's own). Signed with the rest; absent when none applied.
   */
  policy?: { id: string; version: number };
  results: OpenAiModerationResult[];
}

interface Judged {
  type: InputType;
  categories: { [key: string]: CategoryScore };
}

/**
 * The service's answer in OpenAI's response shape. A string or each string of an array is one
 * input with one result (separate texts are not judged together: openai-request.ts asks for no
 * combined layer); an array of parts is one input, so its items and the combined
 * layer fold into one result: per category the highest score, flagged if any part is, applied
 * to the types of the parts that evaluated it. A category nothing evaluated scores 0 with no
 * applied input types, as OpenAI reports one it did not apply. A flag of a category OpenAI has
 * no name for (a policy's `custom` block-list hit) sets `flagged` with no category flagged.
 */
export function toOpenAiModeration(answer: ModerateResponse, shape: OpenAiInputShape): OpenAiModeration {
  const judged = (r: ModerateResponse["results"][number]): Judged => ({ type: r.type === "image" ? "image" : "text", categories: r.categories });
  const results =
    shape === "parts"
      ? [withUnjudged(foldResult([...answer.results.map(judged), ...(answer.combined ? [{ type: "text" as const, categories: answer.combined.categories }] : [])]), answer.results.map((r, index) => ({ r, index })), answer.combined)]
      : answer.results.map((r, index) => withUnjudged(foldResult([judged(r)]), [{ r, index }]));
  return { id: answer.id, model: answer.model, ...(answer.policy ? { policy: { id: answer.policy.id, version: answer.policy.version } } : {}), results };
}

/**
 * `result` with `not_evaluated` listing those of `items` (index: position in `input`) the text model
 * did not evaluate, and the parts' joined reading (`combined`) where that was not evaluated: parts
 * each too short to tell can read as French together ("Je sais", "ou tu habites"); and with
 * `not_seconded` listing those whose guard-model call failed, the joined reading's too: its
 * verdict is folded in, so a failure there is as much this result's as an item's.
 */
function withUnjudged(result: OpenAiModerationResult, items: { r: ModerateResponse["results"][number]; index: number }[], combined?: ModerateResponse["combined"]): OpenAiModerationResult {
  const unread = items.flatMap(({ r, index }) => (r.notEvaluated ? [{ index, reason: r.notEvaluated.reason, language: r.notEvaluated.language }] : []));
  const unreadJoined = combined?.notEvaluated;
  if (unread.length > 0 || unreadJoined) result.not_evaluated = { items: unread, ...(unreadJoined ? { combined: { reason: unreadJoined.reason, language: unreadJoined.language } } : {}) };
  const failed = items.flatMap(({ r, index }) => {
    const code = failedCode(r.secondOpinion);
    return code ? [{ index, error_code: code }] : [];
  });
  const joinedCode = failedCode(combined?.secondOpinion);
  if (failed.length > 0 || joinedCode) result.not_seconded = { items: failed, ...(joinedCode ? { combined: { error_code: joinedCode } } : {}) };
  return result;
}

/** The error code of a guard-model call that failed; "" when none did (an answer that judged nothing is not a failure). */
const failedCode = (opinion: SecondOpinion | undefined): string => (opinion && !opinion.seconded ? opinion.errorCode : "");

function foldResult(parts: Judged[]): OpenAiModerationResult {
  const result: OpenAiModerationResult = { flagged: false, categories: {}, category_scores: {}, category_applied_input_types: {} };
  for (const [name, ours] of OPENAI_CATEGORIES) {
    let score = 0;
    let flagged = false;
    const applied = new Set<InputType>();
    for (const part of ours === undefined ? [] : parts) {
      const entry = part.categories[ours!];
      if (!entry) continue;
      score = Math.max(score, entry.score);
      flagged ||= entry.flagged;
      applied.add(part.type);
    }
    result.categories[name] = flagged;
    result.category_scores[name] = score;
    result.category_applied_input_types[name] = (["text", "image"] as const).filter((type) => applied.has(type));
    result.flagged ||= flagged;
  }
  // A flag OpenAI's categories cannot show (a block-list hit filed under `custom`) still flags the result.
  result.flagged ||= parts.some((part) => Object.values(part.categories).some((entry) => entry.flagged));
  return result;
}
