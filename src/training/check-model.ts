/**
 * How close a model comes to failing the acceptance sentences (acceptance-sentences.ts), which the
 * test suite holds the shipped model to. The test says pass or fail; before shipping a retrain you
 * want to know by how much, since a sentence passed by 0.001 is a coin toss for the next seed
 * (docs/model-history.md, session 18).
 *
 *   npm run check:model [-- --model /tmp/out/text-moderation.bin] [--closest 8]
 *
 * Margin: for an everyday message, its highest score's distance below that category's flag
 * threshold (negative: flagged); for plain harm, the expected category's score above its threshold.
 * Flags come from the full classifier (rules and frames too), so a flag can disagree with its
 * margin; the flag decides. Exits 1 when any sentence fails.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { CategoryId } from "../classifiers/categories.js";
import type { Verdict } from "../classifiers/classifier.js";
import { trainedClassifierOf } from "../classifiers/engine/index.js";
import { DEFAULT_MODEL_PATH, decodeModel } from "../classifiers/model/model-file.js";
import { EVERYDAY_MESSAGES, PLAIN_HARM } from "./acceptance-sentences.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: DEFAULT_MODEL_PATH },
    closest: { type: "string", default: "8" },
  },
});
const model = decodeModel(readFileSync(values.model));
const classifier = trainedClassifierOf(model);
const thresholdOf = (c: CategoryId): number => model.header.thresholds[c] ?? 0.5;

interface Check {
  text: string;
  category: CategoryId;
  score: number;
  /** Distance to the flag threshold on the side the sentence should be (negative: wrong side). */
  margin: number;
  passed: boolean;
}

/** Every category of an everyday message: it passes unflagged; margin = threshold - score. */
function everyday(text: string): Check[] {
  const { categories } = classifier.classify(text) as Verdict;
  return (Object.entries(categories) as [CategoryId, NonNullable<Verdict["categories"][CategoryId]>][]).map(([c, v]) => ({ text, category: c, score: v.score, margin: thresholdOf(c) - v.score, passed: !v.flagged }));
}

/** The expected category of a plain harm sentence: it passes flagged; margin = score - threshold. */
function plainHarm(text: string, category: CategoryId): Check {
  const v = (classifier.classify(text) as Verdict).categories[category];
  const score = v?.score ?? 0;
  return { text, category, score, margin: score - thresholdOf(category), passed: v?.flagged ?? false };
}

const show = (c: Check): string => `  ${c.passed ? "pass" : "FAIL"} ${c.category.padEnd(22)} score ${c.score.toFixed(3)} bar ${thresholdOf(c.category).toFixed(3)} margin ${c.margin >= 0 ? "+" : ""}${c.margin.toFixed(3)}  ${JSON.stringify(c.text)}`;

/**
 * Failures, then the passes closest to the bar. A pass on the wrong side of the bar was decided by a
 * rule or frame, not by the threshold (a frame kept an everyday sense from flagging, a phrase rule
 * flagged below it): listed apart, since a retrain moves those less than a head's score.
 */
function report(title: string, sentences: number, checks: Check[]): number {
  const failed = checks.filter((c) => !c.passed);
  const byThreshold = checks.filter((c) => c.passed && c.margin >= 0).sort((a, b) => a.margin - b.margin);
  const byRule = checks.filter((c) => c.passed && c.margin < 0);
  const failedSentences = new Set(failed.map((c) => c.text)).size;
  console.log(`${title}: ${sentences - failedSentences}/${sentences} pass`);
  for (const c of failed) console.log(show(c));
  console.log("  closest to the bar:");
  for (const c of byThreshold.slice(0, Number(values.closest))) console.log(show(c));
  if (byRule.length > 0) console.log("  on the wrong side of the bar, decided by a rule or frame:");
  for (const c of byRule) console.log(show(c));
  return failed.length;
}

console.log(`model ${model.header.id} (${values.model})`);
const failures =
  report("everyday messages (must not be flagged)", EVERYDAY_MESSAGES.length, EVERYDAY_MESSAGES.flatMap(everyday)) +
  report("plain harm (must be flagged)", PLAIN_HARM.length, PLAIN_HARM.map(([text, category]) => plainHarm(text, category)));
process.exitCode = failures > 0 ? 1 : 0;
