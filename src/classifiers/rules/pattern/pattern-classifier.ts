import type { CategoryId } from "../../categories.js";
import { isExplained, type ClassifyOptions, type EvidenceSpan, type TextClassifier, type Verdict } from "../../classifier.js";
import { MAX_SPANS } from "../../engine/span-choice.js";
import { MINOR_PATTERN, PATTERN_RULES } from "./pattern-rules.js";

const FLAG_THRESHOLD = 0.5;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;

/**
 * Folds common obfuscations while keeping one output char per input code point, so that
 * match offsets still point into the caller's text.
 */
function foldKeepingOffsets(text: string): string {
  const leet: Record<string, string> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s" };
  return Array.from(text, (ch) => {
    if (ZERO_WIDTH.test(ch)) return " ";
    ZERO_WIDTH.lastIndex = 0;
    const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
    const single = Array.from(base)[0] ?? ch;
    return leet[single] ?? single;
  }).join("");
}

/** Scores each category from weighted pattern evidence: score = 1 - e^(-Σ weights). */
export function createPatternClassifier(): TextClassifier {
  return {
    id: "pattern-v1",
    classify(text: string, _signal?: AbortSignal, options?: ClassifyOptions): Verdict {
      const folded = foldKeepingOffsets(text);
      const original = Array.from(text);
      // Regex indices are UTF-16; convert them to code point offsets for the API.
      const toCodePoint = (utf16: number) => Array.from(folded.slice(0, utf16)).length;
      const evidence = new Map<CategoryId, { weight: number; spans: EvidenceSpan[] }>();
      const add = (category: CategoryId, weight: number, start: number, end: number) => {
        const entry = evidence.get(category) ?? { weight: 0, spans: [] };
        entry.weight += weight;
        entry.spans.push({ start, end, text: original.slice(start, end).join(""), weight });
        evidence.set(category, entry);
      };
      for (const { category, pattern, weight } of PATTERN_RULES) {
        for (const match of folded.matchAll(pattern)) {
          const start = toCodePoint(match.index);
          add(category, weight, start, start + Array.from(match[0]).length);
        }
      }
      const sexual = evidence.get("sexual");
      if (sexual) {
        for (const match of folded.matchAll(MINOR_PATTERN)) {
          const start = toCodePoint(match.index);
          add("sexual_minors", sexual.weight, start, start + Array.from(match[0]).length);
        }
      }
      const verdict: Verdict = { categories: {}, explanations: {} };
      for (const category of allJudged()) {
        const entry = evidence.get(category);
        const score = entry ? round(1 - Math.exp(-entry.weight)) : 0;
        const flagged = score >= FLAG_THRESHOLD;
        const scored = { score, flagged };
        verdict.categories[category] = scored;
        // Also where a policy's threshold may flag it (ClassifyOptions). At most the engine's
        // MAX_SPANS, so applyPolicy's "were the spans cut?" check holds for both classifiers.
        if (entry && isExplained(category, scored, options?.explainFrom)) verdict.explanations[category] = entry.spans.sort((a, b) => b.weight - a.weight).slice(0, MAX_SPANS);
      }
      return verdict;
    },
  };
}

function allJudged(): CategoryId[] {
  return [...new Set<CategoryId>([...PATTERN_RULES.map((r) => r.category), "sexual_minors"])];
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
