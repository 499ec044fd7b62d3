import { CATEGORY_IDS, isCategoryId, type CategoryId } from "../classifiers/categories.js";
import { ProviderError } from "./provider-error.js";
import { quoteSafely } from "./quote-safely.js";

interface ParsedVerdict {
  scores: Record<CategoryId, number>;
  reason: string;
}

/** Longest reason kept; models asked for one sentence sometimes write an essay. */
export const MAX_REASON_LENGTH = 300;

// One optional markdown fence around the whole answer is a formatting habit of some local models;
// anything else around the JSON (prose, a second object) is rejected.
const FENCED = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i;

/**
 * Turns a vision model's message into scores, strictly: exactly the eleven categories, each a
 * number in [0, 1], and a string reason. Anything else is a malformed answer, never a guess:
 * a model that was talked into another format by text in the image must not yield a verdict.
 */
export function parseVisionVerdict(content: string, who = "vision model"): ParsedVerdict {
  const trimmed = content.trim();
  const json = FENCED.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    // Not `error` as the cause: its message quotes the answer (which may echo the caller's text).
    throw malformed(who, `the answer is not a JSON object (${(error as Error).name})`);
  }
  if (!isPlainObject(value)) throw malformed(who, "the answer is not a JSON object");
  // JSON.parse keeps the last of a repeated key: {"hate":0.99,"hate":0.1} read 0.1. Ambiguous.
  const repeated = repeatedKey(json);
  if (repeated !== undefined) throw malformed(who, `the key ${quoteSafely(repeated)} is given twice`);
  const extra = Object.keys(value).filter((key) => key !== "categories" && key !== "reason");
  if (extra.length > 0) throw malformed(who, `unexpected keys ${extra.map(quoteSafely).join(", ")}`);

  const { categories, reason } = value;
  if (!isPlainObject(categories)) throw malformed(who, '"categories" is not an object');
  const unknown = Object.keys(categories).filter((key) => !isCategoryId(key));
  if (unknown.length > 0) throw malformed(who, `unknown categories ${unknown.map(quoteSafely).join(", ")}`);
  const scores = {} as Record<CategoryId, number>;
  for (const id of CATEGORY_IDS) {
    const score = categories[id];
    if (score === undefined) throw malformed(who, `category "${id}" is missing`);
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) {
      throw malformed(who, `category "${id}" is ${quoteSafely(score)}, not a number between 0 and 1`);
    }
    scores[id] = score;
  }
  if (typeof reason !== "string") throw malformed(who, '"reason" is not a string');
  const oneLine = reason.replace(/\s+/g, " ").trim();
  return {
    scores,
    reason: oneLine.length > MAX_REASON_LENGTH ? `${oneLine.slice(0, MAX_REASON_LENGTH - 1)}…` : oneLine,
  };
}

/** The first key given twice in one object of a valid JSON text, or undefined. */
function repeatedKey(json: string): string | undefined {
  const objects: Set<string>[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === "{") objects.push(new Set());
    else if (c === "}") objects.pop();
    else if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      let next = end + 1;
      while (json[next] === " " || json[next] === "\n" || json[next] === "\r" || json[next] === "\t") next++;
      if (json[next] === ":") {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        const keys = objects.at(-1)!;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function malformed(who: string, detail: string, cause?: unknown): ProviderError {
  return new ProviderError("malformed", `The ${who}'s verdict is malformed: ${detail}.`, {
    retryable: true,
    answered: true,
    ...(cause === undefined ? {} : { cause }),
  });
}
