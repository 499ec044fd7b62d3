/**
 * `npx tsx src/training/in-domain-cv.ts`: how well a training recipe ranks one dataset's own posts
 * when it trains on the rest of them, by cross-validation over that dataset (default CAD, the
 * expert-labelled Reddit posts). Its texts are split by hash into --parts parts; for each part the
 * whole classifier (members, optional expert, calibration, rules) trains on every other row and
 * scores that part. The card's "in domain" line scores only the calibration split (about 120
 * harassment positives, whose AUPRC moves by 0.03 with the split alone, docs/model-history.md
 * session 27); pooled over five parts it rests on about 800.
 *
 * Flags: --dataset NAME, --parts N (5), --only 0,1 (parts to run here: two processes share the
 * parts), --members N (4), --expert DATASETS:HEADS:WEIGHT (as train.ts; default none, as shipped), --tag NAME, --out FILE (one
 * JSON line per part, appended; default $TMPDIR/in-domain-cv.jsonl), --summary (print each tag's
 * figures from --out and stop; for CAD also harassment with its group abuse left out, negative or
 * positive, and the share of neutral posts flagged for anything). The corpus is train.ts's default (settings.ts), so environment
 * variables such as TRAFFIC_WEIGHT change it as they change `npm run train`. Flags are counted with
 * the random split's thresholds (best F1), not the shipped held-out guard: compare them between
 * recipes, not with the card.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CategoryId } from "../classifiers/categories.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { createEngine } from "../classifiers/engine/engine.js";
import { buildModelFile } from "./build-model.js";
import { buildCorpus } from "./corpus.js";
import { datasetsRoot } from "./datasets/files.js";
import { readAll } from "./datasets/index.js";
import { ensembleOf, expertRows, memberSeed, parseExpert, withExpert } from "./ensemble.js";
import { scoreHeldOut, summarize } from "./evaluate.js";
import { averagePrecision } from "./metrics.js";
import { hashString } from "./prng.js";
import { DEFAULT_HASHING, DEFAULT_SEED, defaultCorpusOptions, learnedHeads, SHIPPED_MEMBER, WINDOW } from "./settings.js";
import { trainMlp } from "./train-mlp.js";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "cad-reddit-abuse" },
    parts: { type: "string", default: "5" },
    only: { type: "string" },
    members: { type: "string", default: "4" },
    expert: { type: "string" },
    tag: { type: "string", default: "recipe" },
    out: { type: "string", default: join(tmpdir(), "in-domain-cv.jsonl") },
    summary: { type: "boolean", default: false },
  },
});
/** The categories reported: the two the dataset labels as abuse. */
const REPORTED: readonly CategoryId[] = ["harassment", "hate"];

/** One part's result: its AUPRC per category, the scores behind it (to pool parts), safe rows flagged. */
interface PartResult {
  tag: string;
  part: number;
  auprc: Partial<Record<CategoryId, number>>;
  scores: Partial<Record<CategoryId, { s: number[]; y: number[] }>>;
  /** Every post of the part with its slice (CAD: person, identity, affiliation, neutral...) and scores. */
  bySlice?: { slice: string; s: Partial<Record<CategoryId, number>>; flagged?: boolean }[];
  safe: number;
  safeFlagged: number;
}

if (values.summary) {
  printSummary(values.out);
  process.exit(0);
}
const PARTS = Number(values.parts);
const parts = values.only ? values.only.split(",").map(Number) : Array.from({ length: PARTS }, (_, k) => k);
const MEMBERS = Number(values.members);
const seed = DEFAULT_SEED;
const heads = learnedHeads();
const expert = parseExpert(values.expert, heads);
const examples = readAll(datasetsRoot());
const corpus = buildCorpus(examples, { ...defaultCorpusOptions(seed), sequences: false });
const target = corpus.datasets.indexOf(values.dataset);
if (target < 0) throw new Error(`no dataset "${values.dataset}" in ${datasetsRoot()}`);
// By normalised text, so a post that appears twice is in one part.
const partOfExample = examples.map((e) => (e.dataset === values.dataset ? hashString(normalizeForMatching(e.text), 777) % PARTS : -1));
const rowsWhere = (pred: (r: number) => boolean): Uint32Array => Uint32Array.from({ length: corpus.rows }, (_, r) => r).filter(pred);

for (const part of parts) {
  const outOfTraining = (r: number): boolean => corpus.dataset[r] === target && partOfExample[corpus.example[r]!] === part;
  const train = rowsWhere((r) => corpus.split[r] === 0 && !outOfTraining(r));
  const calibration = rowsWhere((r) => corpus.split[r] === 1 && !outOfTraining(r));
  // As train.ts's embedding-mlp family trains the shipped model (defaults of settings.ts).
  const member = (k: number, rows: Uint32Array) => trainMlp(corpus, rows, DEFAULT_HASHING.buckets, { heads, seed: memberSeed(seed, k), ...SHIPPED_MEMBER });
  const members = Array.from({ length: MEMBERS }, (_, k) => member(k, train));
  const trained = expert ? withExpert(members, member(MEMBERS, expertRows(corpus, train, expert)), heads, expert) : ensembleOf(members);
  const { model } = buildModelFile({ id: `in-domain-cv-${part}`, corpus, calibrationRows: calibration, calibrateBy: "example", trained, heads, hashing: DEFAULT_HASHING, window: WINDOW, training: {} });
  const held = scoreHeldOut(model, examples.filter((_, i) => partOfExample[i] === part), values.dataset);
  const summary = summarize([held]);
  const engine = createEngine(model);
  const seen = new Set<string>();
  const bySlice = examples
    .filter((e, i) => partOfExample[i] === part && !seen.has(e.text) && seen.add(e.text))
    .map((e) => {
      const v = engine.classify(e.text) as { categories: Record<string, { score: number; flagged: boolean }> };
      const flagged = Object.values(v.categories).some((c) => c.flagged);
      return { slice: e.slice, s: Object.fromEntries(REPORTED.map((c) => [c, v.categories[c]?.score ?? 0])), flagged };
    });
  const result: PartResult = {
    tag: values.tag, part, safe: held.safe ?? 0, safeFlagged: held.safeFlagged ?? 0,
    auprc: Object.fromEntries(REPORTED.map((c) => [c, summary[c]?.auprc])),
    scores: Object.fromEntries(REPORTED.map((c) => [c, { s: held.byCategory[c]?.s ?? [], y: held.byCategory[c]?.y ?? [] }])),
    bySlice,
  };
  appendFileSync(values.out, `${JSON.stringify(result)}\n`);
  console.log(`${values.tag} part ${part}: ${REPORTED.map((c) => `${c} ${result.auprc[c]?.toFixed(3)}`).join(", ")}, safe rows flagged ${result.safeFlagged}/${result.safe}`);
}

/** Per tag: each category's AUPRC pooled over the parts' scores and per part, and safe rows flagged. */
function printSummary(file: string): void {
  if (!existsSync(file)) throw new Error(`no results in ${file}`);
  const byTag = new Map<string, PartResult[]>();
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const r = JSON.parse(line) as PartResult;
    byTag.set(r.tag, [...(byTag.get(r.tag) ?? []), r]);
  }
  for (const [tag, results] of byTag) {
    results.sort((a, b) => a.part - b.part);
    const figures = REPORTED.map((c) => {
      const s = results.flatMap((r) => r.scores[c]?.s ?? []);
      const y = results.flatMap((r) => r.scores[c]?.y ?? []);
      return `${c} ${averagePrecision(s, y).toFixed(3)} (${results.map((r) => r.auprc[c]?.toFixed(3)).join(" ")})`;
    });
    const flagged = results.reduce((n, r) => n + r.safeFlagged, 0) / Math.max(1, results.reduce((n, r) => n + r.safe, 0));
    console.log(`${tag} [parts ${results.map((r) => r.part).join(",")}]: ${figures.join("; ")}; safe rows flagged ${(100 * flagged).toFixed(1)} %`);
    const posts = results.flatMap((r) => r.bySlice ?? []);
    if (posts.some((p) => p.slice === "affiliation")) console.log(`  harassment, by how group (affiliation) abuse is read: ${affiliationReadings(posts)}`);
    const neutral = posts.filter((p) => p.slice === "neutral" && p.flagged !== undefined);
    if (neutral.length > 0) console.log(`  neutral posts flagged for anything: ${(100 * neutral.filter((p) => p.flagged).length / neutral.length).toFixed(1)} % of ${neutral.length}`);
  }
}

/**
 * CAD's group abuse (AffiliationDirectedAbuse alone) is neither person-directed nor hate: harassment
 * AUPRC of person-directed abuse, with those posts left out, counted as negatives and as positives
 * (an outside scorer could read them any of the three ways). Identity-only abuse and neutral posts
 * are negatives, counter-speech is left out.
 */
function affiliationReadings(posts: readonly { slice: string; s: Partial<Record<CategoryId, number>> }[]): string {
  const reading = (affiliation: number | null): string => {
    const s: number[] = [];
    const y: number[] = [];
    for (const p of posts) {
      const label = p.slice.startsWith("person") ? 1 : p.slice === "affiliation" ? affiliation : p.slice === "counter" ? null : 0;
      if (label === null) continue;
      s.push(p.s.harassment ?? 0);
      y.push(label);
    }
    return averagePrecision(s, y).toFixed(3);
  };
  return `left out ${reading(null)}, negative ${reading(0)}, positive ${reading(1)}`;
}
