import { TERMS_PER_CHECKPOINT, runCooperatively, runToEnd, type Steps } from "../base/cooperative.js";
import { doubledRuns } from "./doubled-letters.js";
import { caseForms } from "./term-matcher.js";
import { CATEGORY_IDS, isCategoryId, type CategoryId } from "../classifiers/categories.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { ApiError } from "../errors/api-error.js";

/** The category a block-list term flags when the account names none of the model's. */
export const CUSTOM_CATEGORY = "custom";
export type BlockCategory = CategoryId | typeof CUSTOM_CATEGORY;
/**
 * The score a block-list hit gives where no model scored its category (`custom`, or text the model
 * did not evaluate): the list is certain, and a 0 would read as judged and harmless.
 */
export const LIST_SCORE = 1;

/** Per category: flag at or above this score, or "off" (still scored, never flagged by the score). */
export type Threshold = number | "off";

export interface BlockTerm {
  term: string;
  category: BlockCategory;
}

/** What an account (or one of its keys) chooses; the rest of the answer follows the model. */
export interface PolicyRules {
  /** Categories absent here flag where the model flags them. */
  thresholds: Partial<Record<CategoryId, Threshold>>;
  blockList: BlockTerm[];
  allowList: string[];
}

/** A stored policy: rules plus the id and version an answer names. */
export interface Policy extends PolicyRules {
  id: string;
  version: number;
}

/** The policy of accounts that chose none: model thresholds, no lists. */
export const DEFAULT_POLICY: Policy = Object.freeze({ id: "default", version: 0, thresholds: {}, blockList: [], allowList: [] });

/** Limits that keep a policy's matcher small and its storage row bounded (see docs/policies.md). */
export const POLICY_LIMITS = {
  blockListTerms: 10_000,
  allowListTerms: 1_000,
  /** Code points of one term as written (phrases included). */
  termCodePoints: 100,
} as const;

/**
 * The rules from a caller's draft (dashboard form, PolicyService, modctl), or a refusal with a
 * stable code. Every way of managing a policy goes through here, so they refuse the same drafts.
 */
export function validatePolicyRules(draft: unknown): PolicyRules {
  return runToEnd(validationSteps(draft));
}

/** The same, giving the event loop a turn every few milliseconds (a full list takes 50-150 ms). */
export function validatePolicyRulesCooperatively(draft: unknown): Promise<PolicyRules> {
  return runCooperatively(validationSteps(draft));
}

/** A draft's fields: the rules in either spelling, and a stored policy's own (ignored), so `get`'s policy can be set again. */
const DRAFT_FIELDS = new Set(["thresholds", "blockList", "block_list", "allowList", "allow_list", "id", "version"]);

function* validationSteps(draft: unknown): Steps<PolicyRules> {
  if (!isRecord(draft)) throw new ApiError("invalid_policy", "A policy is an object with thresholds, block_list and allow_list.");
  // A misspelt field ("blocklist") was ignored, and the policy saved without the list it meant.
  for (const key of Object.keys(draft)) {
    if (!DRAFT_FIELDS.has(key)) throw new ApiError("invalid_policy", `Unknown policy field "${key.slice(0, 40)}"; use thresholds, block_list and allow_list.`);
  }
  for (const [camel, snake] of [["blockList", "block_list"], ["allowList", "allow_list"]] as const) {
    if (draft[camel] !== undefined && draft[snake] !== undefined) throw new ApiError("invalid_policy", `Give ${snake} once (it is also written ${camel}).`);
  }
  const thresholds = validateThresholds(draft.thresholds ?? {});
  const blockList = yield* validateBlockList(draft.blockList ?? draft.block_list ?? []);
  const allowList = yield* validateAllowList(draft.allowList ?? draft.allow_list ?? []);
  // Two terms are the same when they match the same texts: a normal form in common (each is
  // matched in its usual cases, term-matcher.ts caseForms: "Дурак" and "дурак" are one term), as
  // many doubled letters ("ass" and "as" are different terms).
  const sameness = (term: string): string[] => caseForms(term).map((form) => `${form}\u0000${doubledRuns(term)}`);
  const blocked = new Set<string>();
  for (const [i, b] of blockList.entries()) {
    for (const key of sameness(b.term)) blocked.add(key);
    if (i % TERMS_PER_CHECKPOINT === TERMS_PER_CHECKPOINT - 1) yield;
  }
  for (const term of allowList) {
    if (sameness(term).some((key) => blocked.has(key))) {
      throw new ApiError("policy_term_invalid", `"${term}" is on both the block list and the allow list.`, { detail: { field: "allow_list" } });
    }
  }
  return { thresholds, blockList, allowList };
}

function validateThresholds(value: unknown): PolicyRules["thresholds"] {
  if (!isRecord(value)) throw new ApiError("invalid_policy", "thresholds must be an object of category: number or \"off\".");
  const out: PolicyRules["thresholds"] = {};
  for (const [category, threshold] of Object.entries(value)) {
    if (!isCategoryId(category)) {
      throw new ApiError("policy_unknown_category", `Unknown category "${category.slice(0, 40)}"; known: ${CATEGORY_IDS.join(", ")}.`, { detail: { field: "thresholds", category: category.slice(0, 40) } });
    }
    if (threshold === "off") out[category] = "off";
    // -0 is stored as 0: JSON writes them alike, so a signed answer holding -0 could not be checked.
    else if (typeof threshold === "number" && Number.isFinite(threshold) && threshold >= 0 && threshold <= 1) out[category] = threshold === 0 ? 0 : threshold;
    else {
      const rpcRemark = " (over RPC: the category in the off list)";
      throw new ApiError("policy_invalid_threshold", `The threshold of ${category} must be a number from 0 to 1, or "off"${rpcRemark}.`, {
        detail: { field: "thresholds", category, rpcRemark },
      });
    }
  }
  return out;
}

/** The refusal of a list holding `got` terms, more than its limit (POLICY_LIMITS). */
export function listTooLarge(list: "block" | "allow", got: number): ApiError {
  return new ApiError("policy_list_too_large", `The ${list} list holds at most ${mostTerms(list)} terms (got ${got}).`, { detail: { field: listField(list) } });
}

/** A list's field as a draft (and a refusal's detail) names it. */
const listField = (list: "block" | "allow") => (list === "block" ? "block_list" : "allow_list");

/** The most terms the block or allow list holds. */
export function mostTerms(list: "block" | "allow"): number {
  return list === "block" ? POLICY_LIMITS.blockListTerms : POLICY_LIMITS.allowListTerms;
}

function* validateBlockList(value: unknown): Steps<BlockTerm[]> {
  if (!Array.isArray(value)) throw new ApiError("invalid_policy", "block_list must be a list of {term, category}.");
  if (value.length > POLICY_LIMITS.blockListTerms) throw listTooLarge("block", value.length);
  const out: BlockTerm[] = [];
  for (const entry of value as unknown[]) {
    if (!isRecord(entry) || typeof entry.term !== "string") throw new ApiError("invalid_policy", "Each block_list entry is {term, category}.");
    const category = entry.category ?? CUSTOM_CATEGORY;
    if (typeof category !== "string" || (category !== CUSTOM_CATEGORY && !isCategoryId(category))) {
      throw new ApiError("policy_unknown_category", `Unknown block-list category "${String(category).slice(0, 40)}"; use one of ${CATEGORY_IDS.join(", ")} or custom.`, {
        detail: { field: "block_list" },
      });
    }
    out.push({ term: validTerm(entry.term, "block"), category });
    if (out.length % TERMS_PER_CHECKPOINT === 0) yield;
  }
  return out;
}

function* validateAllowList(value: unknown): Steps<string[]> {
  if (!Array.isArray(value)) throw new ApiError("invalid_policy", "allow_list must be a list of terms.");
  if (value.length > POLICY_LIMITS.allowListTerms) throw listTooLarge("allow", value.length);
  const out: string[] = [];
  for (const term of value as unknown[]) {
    if (typeof term !== "string") throw new ApiError("invalid_policy", "Each allow_list entry is a string.");
    out.push(validTerm(term, "allow"));
    if (out.length % TERMS_PER_CHECKPOINT === 0) yield;
  }
  return out;
}

/** A line break inside a term: refused (the dashboard's form is a term per line; policy-store.ts reads older ones). */
export const TERM_LINE_BREAK = /[\r\n\u2028\u2029]/;

/** A term trimmed; refused when too long or when normalisation leaves nothing to match. */
const INVISIBLE_CONTROL = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** How much longer than its characters a term may grow once normalised. */
const NORMALIZED_TERM_FACTOR = 3;

function validTerm(raw: string, list: "block" | "allow"): string {
  const detail = { field: listField(list) };
  const term = raw.trim();
  let codePoints = 0;
  for (const _ of term) codePoints++;
  if (codePoints > POLICY_LIMITS.termCodePoints) {
    throw new ApiError("policy_term_invalid", `A term has at most ${POLICY_LIMITS.termCodePoints} characters (one has ${codePoints}).`, { detail });
  }
  if (TERM_LINE_BREAK.test(term)) {
    throw new ApiError("policy_term_invalid", `The term "${term.slice(0, 40)}" spans lines; a term is one word or phrase on one line.`, { detail });
  }
  // Control characters and text-direction overrides are no part of a word: a NUL came back from
  // the dashboard as U+FFFD (a new version with nothing changed), and U+202E shows a term reversed.
  if (INVISIBLE_CONTROL.test(term)) {
    throw new ApiError("policy_term_invalid", `A term holds a control or text-direction character (${JSON.stringify(term.slice(0, 40))}).`, { detail });
  }
  const normalized = normalizeForMatching(term);
  // Some characters expand under normalisation (U+FDFA is 18 letters): the match work is the
  // normalised length's, which the character limit alone did not bound. Three times the limit: a
  // Korean syllable is two or three letters (jamo), and twice refused a 67-syllable term.
  if (normalized.length > NORMALIZED_TERM_FACTOR * POLICY_LIMITS.termCodePoints) {
    throw new ApiError("policy_term_invalid", `The term "${term.slice(0, 40)}" is longer than ${NORMALIZED_TERM_FACTOR * POLICY_LIMITS.termCodePoints} characters once normalised (some characters expand).`, { detail });
  }
  if (!/[\p{L}\p{N}]/u.test(normalized)) {
    throw new ApiError("policy_term_invalid", `The term "${term.slice(0, 40)}" has no letters or digits to match.`, { detail });
  }
  return term;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
