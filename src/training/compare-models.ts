/**
 * Two model files' flags on sentences written for comparing them (comparison-sentences.ts): how many
 * harmful and benign sentences each flags, and every sentence whose flags differ. The held-out
 * tables of the card measure the fold models; this reads the shipped files themselves. In session
 * 37 a retrain level with `2026-11-m` on the folds' mean flagged 16 of the 130 benign sentences
 * against its 9, and was not kept (docs/model-history.md). It also counts the sentences flagged
 * inside ordinary prose (a short harm in a long benign text, which the bag's mean dilutes), and,
 * with --common-words N, how many of the N most frequent words of everyday texts each model flags
 * on its own (words-alone.ts; reads the datasets, MODERATION_DATASETS).
 *
 *   npm run compare:models -- --against OLD.bin [--model NEW.bin] [--common-words 3000]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { trainedClassifierOf } from "../classifiers/engine/index.js";
import { DEFAULT_MODEL_PATH, decodeModel } from "../classifiers/model/model-file.js";
import { COMPARISON_SENTENCES } from "./comparison-sentences.js";
import { compareFlags } from "./model-comparison.js";
import { readAll } from "./datasets/index.js";
import { datasetsRoot } from "./datasets/files.js";
import { commonBenignWords, EVERYDAY_WORD_SOURCES, wordsFlaggedAlone } from "./words-alone.js";

const { values } = parseArgs({ options: { model: { type: "string", default: DEFAULT_MODEL_PATH }, against: { type: "string" }, "common-words": { type: "string", default: "0" } } });
if (!values.against) {
  console.error("usage: npm run compare:models -- --against OLD.bin [--model NEW.bin] [--common-words N]");
  process.exit(2);
}
const load = (path: string) => {
  const model = decodeModel(readFileSync(path));
  return { id: model.header.id, classifier: trainedClassifierOf(model) };
};
const before = load(values.against);
const after = load(values.model);
const result = compareFlags(before.classifier, after.classifier, COMPARISON_SENTENCES);
const score = (s?: number): string => (s === undefined ? "absent" : s.toFixed(3));
console.log(`${before.id} -> ${after.id}`);
console.log(`harmful flagged: ${result.flagged.before.harmful} -> ${result.flagged.after.harmful} of ${result.harmful}`);
console.log(`benign flagged:  ${result.flagged.before.benign} -> ${result.flagged.after.benign} of ${result.benign}`);
const { flaggedInProse: prose } = result;
console.log(`inside benign prose, harmful flagged: ${prose.before.harmful} -> ${prose.after.harmful}; benign flagged: ${prose.before.benign} -> ${prose.after.benign}`);
const common = Number(values["common-words"]);
if (common > 0) {
  const words = commonBenignWords(readAll(datasetsRoot(), EVERYDAY_WORD_SOURCES), common);
  const [was, now] = [wordsFlaggedAlone(before.classifier, words), wordsFlaggedAlone(after.classifier, words)];
  const perCategory = CATEGORY_IDS.filter((c) => was.byCategory[c] !== undefined || now.byCategory[c] !== undefined);
  console.log(`common words flagged alone: ${was.flagged.length} -> ${now.flagged.length} of ${words.length} (${perCategory.map((c) => `${c} ${was.byCategory[c] ?? 0} -> ${now.byCategory[c] ?? 0}`).join(", ")})`);
  const list = (w: typeof now) => w.flagged.slice(0, 30).map((f) => `${f.word}:${f.categories.join("+")}`).join(" ");
  console.log(`  before, most frequent first: ${list(was)}\n  after: ${list(now)}`);
}
for (const kind of ["new miss", "new catch", "new false positive", "fixed false positive", "other category"] as const) {
  const changes = result.changes.filter((c) => c.kind === kind);
  if (changes.length === 0) continue;
  console.log(`\n${kind} (${changes.length}):`);
  for (const { sentence, categories } of changes) {
    const cells = categories.map(({ category, before: b, after: a }) => `${category} ${score(b.score)}${b.flagged ? "F" : ""} -> ${score(a.score)}${a.flagged ? "F" : ""}`);
    console.log(`  [${sentence.group}] ${JSON.stringify(sentence.text)}: ${cells.join("; ")}`);
  }
}
