/**
 * Speed and size of the default text model: `npm run bench:text`. Prints figures and writes
 * models/bench.json and re-renders models/README.md with them. Not a test: no
 * assertions on time, the numbers depend on the machine.
 *
 * `npm run bench:text -- --baseline OLD.bin` also times another model file (e.g. the model being
 * replaced, from `git show HEAD~1:models/text-moderation.bin`) in the same run, interleaved, and
 * prints the ratio: on a shared machine only same-run ratios compare.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { DEFAULT_MODEL_PATH, loadTrainedClassifier } from "../src/classifiers/engine/index.js";
import { writeReport } from "../src/training/report.js";

// The last seven words make many windows flag, so this mix also pays for explanations.
const WORDS = "the council met on tuesday to review budget library wing members discussed opening hours cost of shelving proposal extend reading room you are stupid idiot we will hurt them blood".split(" ");

/** Deterministic pseudo-text of about `chars` characters. */
function makeText(seed: number, chars: number, vocabulary = WORDS.length): string {
  let s = seed;
  let out = "";
  while (out.length < chars) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out += `${WORDS[s % vocabulary]}${s % 11 === 0 ? ". " : " "}`;
  }
  return out.slice(0, chars);
}

const t0 = performance.now();
const classifier = loadTrainedClassifier();
const loadMs = performance.now() - t0;

/**
 * The worst cases found for the phrase rules: one phrase repeated with no full stop, so every rule
 * that looks along a hit's sentence or relates hits to other hits meets thousands of them. Before
 * session 7 "i want to die " took 36 ms here (a scan per hit to its sentence's end).
 */
const ADVERSARIAL_PHRASES = [
  "i will kill you ", "muslims are vermin ", "women idiots ", "i want to die ",
  // Session 8: sexual acts paired with minor words, joined lists of group claims, nudity words in everyday phrases.
  "he molested a child ", "muslims are vermin muslims should die ", "nude lipstick ",
];
const repeatTo = (chars: number) => (phrase: string) => phrase.repeat(Math.ceil(chars / phrase.length)).slice(0, chars);
const ADVERSARIAL = ADVERSARIAL_PHRASES.map(repeatTo(10000));

/** The slowest adversarial phrase at the combined layer's longest text (10 items of 10,000 chars). */
function worstAt100k(): string {
  let worst = { ms: 0, phrase: "" };
  for (const phrase of ADVERSARIAL_PHRASES) {
    const ms = perItem(100000, 1, WORDS.length, [repeatTo(100000)(phrase)]);
    if (ms > worst.ms) worst = { ms, phrase };
  }
  return `${worst.ms.toFixed(1)} ms ("${worst.phrase.trim()}")`;
}

/** Best of five timed rounds after a warm-up, so JIT compilation and noisy neighbours count less. */
function perItem(chars: number, n: number, vocabulary = WORDS.length, fixed?: string[]): number {
  const items = fixed ?? Array.from({ length: n }, (_, i) => makeText(i + 1, chars, vocabulary));
  for (const t of items) classifier.classify(t);
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (const t of items) classifier.classify(t);
    best = Math.min(best, (performance.now() - start) / n);
  }
  return best;
}

const baselineAt = process.argv.indexOf("--baseline");
const baselinePath = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined;
/** The 1,000-char mixed figure for the default model and the baseline, alternating rounds so both see the same load. */
function versusBaseline(path: string): string {
  const other = loadTrainedClassifier(path);
  const items = Array.from({ length: 300 }, (_, i) => makeText(i + 1, 1000));
  const time = (c: typeof classifier): number => {
    const start = performance.now();
    for (const t of items) c.classify(t);
    return (performance.now() - start) / items.length;
  };
  time(classifier);
  time(other);
  let mine = Infinity, theirs = Infinity;
  for (let round = 0; round < 7; round++) {
    mine = Math.min(mine, time(classifier));
    theirs = Math.min(theirs, time(other));
  }
  return `${mine.toFixed(3)} ms vs ${theirs.toFixed(3)} ms for the baseline (${(mine / theirs).toFixed(2)}x)`;
}

const figures: Record<string, string> = {
  "model file": `${(statSync(DEFAULT_MODEL_PATH).size / 1e6).toFixed(2)} MB`,
  "load time": `${loadMs.toFixed(0)} ms`,
  "100-char item": `${perItem(100, 2000).toFixed(3)} ms`,
  "1,000-char item (mixed, flags + explanations)": `${perItem(1000, 1000).toFixed(3)} ms`,
  "1,000-char item (benign words only)": `${perItem(1000, 1000, WORDS.length - 7).toFixed(3)} ms`,
  "10,000-char item": `${perItem(10000, 100).toFixed(3)} ms`,
  [`10,000-char item repeating one harmful phrase (mean of ${ADVERSARIAL.length})`]: `${perItem(10000, ADVERSARIAL.length, WORDS.length, ADVERSARIAL).toFixed(3)} ms`,
  "100,000-char text repeating one harmful phrase (worst)": worstAt100k(),
  ...(baselinePath ? { "1,000-char item, same run as the baseline model": versusBaseline(baselinePath) } : {}),
  node: process.version,
};
for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(46)} ${v}`);
const models = dirname(DEFAULT_MODEL_PATH);
writeFileSync(join(models, "bench.json"), `${JSON.stringify(figures, null, 1)}\n`);
// Re-render the report so its speed table matches the committed model.
const evaluation = join(models, "evaluation.json");
if (existsSync(evaluation)) writeReport(join(models, "README.md"), JSON.parse(readFileSync(evaluation, "utf8")) as Parameters<typeof writeReport>[1]);
