/**
 * How well language reading (src/classifiers/language/read-language.ts) separates what the model
 * covers from what it does not, on both sides (models/languages.md keeps the figures):
 *  - every third row of the English training sets (MODERATION_DATASETS, default ../shared/datasets):
 *    how many are read as partly or wholly another language (and so marked, or not evaluated);
 *  - sentences in other languages written for this (bench/language-cases.ts), alone and after a
 *    short English lead-in: how many are not seen as another language at all (read as "safe").
 *
 *   npx tsx bench/language-coverage.ts        (SHOW=1 lists the English rows, MISSES=1 the misses)
 */
import { readLanguage } from "../src/classifiers/language/read-language.js";
import { datasetsRoot } from "../src/training/datasets/files.js";
import { readAll } from "../src/training/datasets/index.js";
import { ENGLISH_BARE_LEADS, ENGLISH_COMMA_LEADS, ENGLISH_LEADS, FOREIGN } from "./language-cases.js";

const EN = new Set(["en"]);
const examples = readAll(datasetsRoot()).filter((_, i) => i % 3 === 0);
let partly = 0;
let wholly = 0;
let harmful = 0;
let harmfulMarked = 0;
for (const e of examples) {
  const reading = readLanguage(e.text, EN);
  const harm = e.labels.some((l) => l === 1);
  if (harm) harmful++;
  if (!reading.uncovered) continue;
  partly++;
  if (reading.uncovered.share >= 0.5) wholly++;
  if (harm) harmfulMarked++;
  if (process.env.SHOW) console.log(`${e.dataset}\t${reading.uncovered.language}\t${reading.uncovered.share.toFixed(2)}\t${e.text.slice(0, 140).replace(/\s+/g, " ")}`);
}
const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(2)} %`;
console.log(`English rows: ${examples.length}; read as partly or wholly another language ${partly} (${percent(partly, examples.length)}), wholly ${wholly}; of ${harmful} harmful rows ${harmfulMarked}`);

const missed = (texts: string[]) => texts.filter((text) => {
  const seen = readLanguage(text, EN).uncovered !== undefined;
  if (!seen && process.env.MISSES) console.log(`missed: ${text}`);
  return !seen;
}).length;
const alone = FOREIGN.map(([, text]) => text);
const led = ENGLISH_LEADS.flatMap((lead) => alone.map((text) => `${lead} ${text}`));
// After a comma: the foreign sentence as a clause of the English one, its first letter lower-cased.
const clause = ENGLISH_COMMA_LEADS.flatMap((lead) => alone.map((text) => `${lead} ${text[0]!.toLowerCase()}${text.slice(1)}`));
// With no comma: the foreign sentence runs on from the English words.
const bare = ENGLISH_BARE_LEADS.flatMap((lead) => alone.map((text) => `${lead} ${text[0]!.toLowerCase()}${text.slice(1)}`));
console.log(
  `Other languages, not seen as such: alone ${missed(alone)} of ${alone.length}; after an English lead-in ${missed(led)} of ${led.length}; as a clause after a comma ${missed(clause)} of ${clause.length}; run on with no comma ${missed(bare)} of ${bare.length}`,
);
