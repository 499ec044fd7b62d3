import type {
  CategoryScore,
  CombinedResult,
  DeepAnalysis,
  Explanation,
  ImageInfo,
  ItemResult,
  ModelList,
  ModerateResponse,
  NotEvaluated,
  NotEvaluatedItems,
  PolicyRef,
  SecondOpinion,
} from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, TextItemResultInit } from "./assemble-answer.js";

/**
 * The JSON route's rendering of a Moderate answer, as JSON text: proto field names, every field
 * present, exactly the text of JSON.stringify(toJson(ModerateResponseSchema, answer,
 * { useProtoFieldName: true, alwaysEmitImplicit: true })). The one renderer: the route sends it
 * (src/http/json-route.ts), and a compute worker that answers a call ahead renders its answer
 * message with it too, so the bytes signed ahead are the bytes the route would have sent.
 *
 * Written out field by field rather than through toJson: toJson builds a JSON object per message
 * (its maps key by key through setOwn) that JSON.stringify then walks again; the two cost a compute
 * worker about 2.7 times this per one-text answer (in process). test/moderation/
 * moderate-answer-json.test.ts holds it to toJson's text on messages with every field of the
 * schema set at random, so a field added to the proto and not here fails it.
 *
 * toJson's rules that matter: fields in field-number order; implicit-presence fields always
 * written (alwaysEmitImplicit); optional fields and message fields only when set; maps in their
 * keys' order; doubles NaN and ±Infinity as strings.
 */
export function moderateAnswerJsonText(answer: ModerateResponse): string {
  let out = `{"id":${str(answer.id)},"model":${str(answer.model)},"flagged":${answer.flagged},"results":[`;
  const results = answer.results;
  for (let i = 0; i < results.length; i++) out += (i === 0 ? "" : ",") + itemResult(results[i]!);
  out += "]";
  if (has(answer, "combined")) out += `,"combined":${combinedResult(answer.combined!)}`;
  if (has(answer, "notEvaluated")) out += `,"not_evaluated":${notEvaluatedItems(answer.notEvaluated!)}`;
  if (has(answer, "policy")) out += `,"policy":${policyRef(answer.policy!)}`;
  return `${out}}`;
}

/**
 * The parts of a text-only answer back from its rendering (moderateAnswerJsonText), to build the
 * message it rendered (src/workers/lazy-text-answer.ts): the JSON has proto field names, the
 * parts camelCase ones; only `not_evaluated` differs.
 */
export function parseTextAnswerJson(json: string): AnswerInit<TextItemResultInit> {
  return JSON.parse(json, (_key, value: unknown) => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !("not_evaluated" in value)) return value;
    const { not_evaluated: notEvaluated, ...rest } = value as Record<string, unknown>;
    return { ...rest, notEvaluated };
  }) as AnswerInit<TextItemResultInit>;
}

/** toJson's presence test for a field with explicit presence: set, as an own property. */
const has = <M extends object>(message: M, field: keyof M & string): boolean =>
  message[field] !== undefined && Object.prototype.hasOwnProperty.call(message, field);

/** Characters JSON.stringify escapes in a string (well-formed JSON.stringify: lone surrogates too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON.stringify writes it; most (ids, category names, model names) need no escape. */
const str = (value: string): string => (NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);

/** A uint32 as JSON.stringify writes the number toJson returns (String is the same for finite numbers, -0 included). */
const uint = (value: number): string => (Number.isFinite(value) ? String(value) : "null");

/** A double as toJson gives it (NaN and the infinities as strings), then as JSON.stringify writes it. */
function double(value: number): string {
  if (Number.isFinite(value)) return String(value);
  if (Number.isNaN(value)) return '"NaN"';
  return value > 0 ? '"Infinity"' : '"-Infinity"';
}

function strings(list: readonly string[]): string {
  let out = "[";
  for (let i = 0; i < list.length; i++) out += (i === 0 ? "" : ",") + str(list[i]!);
  return `${out}]`;
}

function list<T>(items: readonly T[], render: (item: T) => string): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) out += (i === 0 ? "" : ",") + render(items[i]!);
  return `${out}]`;
}

function map<T>(record: { [key: string]: T }, render: (value: T) => string): string {
  let out = "{";
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) out += `${i === 0 ? "" : ","}${str(keys[i]!)}:${render(record[keys[i]!]!)}`;
  return `${out}}`;
}

function itemResult(r: ItemResult): string {
  let out = `{"index":${uint(r.index)},"type":${str(r.type)},"flagged":${r.flagged},"categories":${map(r.categories, categoryScore)}`;
  out += `,"explanations":${list(r.explanations, explanation)},"models":${strings(r.models)}`;
  if (has(r, "image")) out += `,"image":${imageInfo(r.image!)}`;
  if (has(r, "deepAnalysis")) out += `,"deep_analysis":${deepAnalysis(r.deepAnalysis!)}`;
  if (has(r, "language")) out += `,"language":${str(r.language!)}`;
  if (has(r, "notEvaluated")) out += `,"not_evaluated":${notEvaluated(r.notEvaluated!)}`;
  if (has(r, "secondOpinion")) out += `,"second_opinion":${secondOpinion(r.secondOpinion!)}`;
  return `${out}}`;
}

function combinedResult(c: CombinedResult): string {
  let out = `{"flagged":${c.flagged},"categories":${map(c.categories, categoryScore)},"explanations":${list(c.explanations, explanation)}`;
  if (has(c, "notEvaluated")) out += `,"not_evaluated":${notEvaluated(c.notEvaluated!)}`;
  if (has(c, "secondOpinion")) out += `,"second_opinion":${secondOpinion(c.secondOpinion!)}`;
  return `${out}}`;
}

const categoryScore = (s: CategoryScore): string => `{"score":${double(s.score)},"flagged":${s.flagged}}`;

const explanation = (e: Explanation): string =>
  `{"category":${str(e.category)},"spans":${list(e.spans, (s) => `{"start":${uint(s.start)},"end":${uint(s.end)},"text":${str(s.text)},"weight":${double(s.weight)}}`)}}`;

const notEvaluated = (n: NotEvaluated): string => `{"reason":${str(n.reason)},"language":${str(n.language)}}`;

const notEvaluatedItems = (n: NotEvaluatedItems): string =>
  `{"items":${list(n.items, (i) => `{"index":${uint(i.index)},"reason":${str(i.reason)},"language":${str(i.language)}}`)}${n.combined ? `,"combined":${notEvaluated(n.combined)}` : ""}}`;

const policyRef = (p: PolicyRef): string => `{"id":${str(p.id)},"version":${uint(p.version)}}`;

const imageInfo = (i: ImageInfo): string =>
  `{"media_type":${str(i.mediaType)},"width":${uint(i.width)},"height":${uint(i.height)},"frames":${uint(i.frames)},"frames_sampled":${uint(i.framesSampled)}}`;

const deepAnalysis = (d: DeepAnalysis): string =>
  `{"provider":${str(d.provider)},"model":${str(d.model)},"categories":${map(d.categories, categoryScore)},"reason":${str(d.reason)}}`;

const modelList = (m: ModelList): string => `{"models":${strings(m.models)}}`;

const secondOpinion = (s: SecondOpinion): string =>
  `{"provider":${str(s.provider)},"model":${str(s.model)},"trigger":${str(s.trigger)},"seconded":${s.seconded},"error_code":${str(s.errorCode)},"category_models":${map(s.categoryModels, modelList)}}`;
