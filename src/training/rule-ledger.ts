/**
 * `npm run eval:rules`: the rule ledger. For every rule family (src/classifiers/rules/) and every
 * frame, the leave-one-dataset-out figures with and without it: pooled AUPRC of the categories
 * its policy row lets it flag, macro AUPRC, and the benign false-positive rate (benign rows of the
 * held-out datasets with any flag). Writes models/rule-ledger.md.
 *
 * It reads the fold models `npm run train` caches (lodo-<family>-<dataset>.bin in --cache, default
 * $TMPDIR/text-moderation-train-cache) for the folds and family in models/evaluation.json, and
 * calibrates each as training does (nested: on the other folds' held-out logits), so its baseline
 * column is the model card's held-out evaluation. Re-run it after training a new model:
 *   npm run train -- --cache DIR && npm run eval:rules -- --cache DIR
 * The held-out sets hold few of the styles some families exist for, so each is also switched off in
 * the shipped model on the acceptance sentences (acceptance-sentences.ts): a family the datasets
 * score as no effect stays only while a sentence fails without it (ledger-verdict.ts).
 * Flags: --cache DIR, --family F, --folds a,b, --eval-cap N (at most N distinct texts per
 * held-out dataset, a fixed sample; 0 = all), --model FILE (the shipped model), --out FILE.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import { createEngine } from "../classifiers/engine/engine.js";
import { withLanguageGate } from "../classifiers/language/language-gate.js";
import { DEFAULT_MODEL_PATH, decodeModel, type ModelFile } from "../classifiers/model/model-file.js";
import { POLICY } from "../classifiers/policy.js";
import { FRAME_NAMES } from "../classifiers/rules/frames.js";
import { RULE_FAMILIES } from "../classifiers/rules/index.js";
import { datasetsRoot } from "./datasets/files.js";
import { readAll } from "./datasets/index.js";
import type { Example } from "./datasets/example.js";
import { EVERYDAY_MESSAGES, failedAcceptanceSentences, PLAIN_HARM } from "./acceptance-sentences.js";
import { AUPRC_STEP, FPR_STEP, ledgerVerdict } from "./ledger-verdict.js";
import { summarize, type HeldOut } from "./evaluate.js";
import { DEFAULT_MAX_FPR, fitFlagsAndSupport, heldOutLogits, withCalibration, type FoldLogits, type GuardRows } from "./heldout-calibration.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    cache: { type: "string", default: join(tmpdir(), "text-moderation-train-cache") },
    family: { type: "string" },
    folds: { type: "string" },
    // 2,500 rows per held-out dataset, as train.ts scores them for the card.
    "eval-cap": { type: "string", default: "2500" },
    out: { type: "string", default: join(repoRoot, "models", "rule-ledger.md") },
    evaluation: { type: "string", default: join(repoRoot, "models", "evaluation.json") },
    // The shipped model, for the acceptance sentences (the folds' models are not what ships).
    model: { type: "string", default: DEFAULT_MODEL_PATH },
  },
});

const evaluation = JSON.parse(readFileSync(values.evaluation, "utf8")) as { id: string; winner: string; folds: string[]; policy?: string; maxFpr?: number; guardRows?: GuardRows };
const family = values.family ?? evaluation.winner;
const folds = values.folds ? values.folds.split(",") : evaluation.folds;
const policy = evaluation.policy ?? "guard";
const maxFpr = evaluation.maxFpr ?? DEFAULT_MAX_FPR;
const cap = Number(values["eval-cap"]);
const started = Date.now();
const log = (msg: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}`);

const foldFile = (d: string): string => join(values.cache, `lodo-${family}-${d}.bin`);
const present = folds.filter((d) => existsSync(foldFile(d)));
const missing = folds.filter((d) => !present.includes(d));
if (present.length === 0) throw new Error(`no fold models in ${values.cache}: run \`npm run train -- --cache ${values.cache}\` first`);
if (missing.length > 0) log(`fold models missing for ${missing.join(", ")}: the ledger covers the other folds only`);

const examples = readAll(datasetsRoot(), present);
log(`read ${examples.length} rows of ${present.join(", ")}`);

/** The held-out rows of one dataset: distinct texts, at most `cap` of them (every k-th, a fixed sample). */
function heldOutRows(d: string): Example[] {
  const seen = new Set<string>();
  const rows = examples.filter((e) => e.dataset === d && !seen.has(e.text) && (seen.add(e.text), true));
  if (cap <= 0 || rows.length <= cap) return rows;
  const step = rows.length / cap;
  return Array.from({ length: cap }, (_, i) => rows[Math.floor(i * step)]!);
}

// Variant 0 is the classifier as shipped; then each family off, each frame off, everything off.
const variants: { name: string; kind: "baseline" | "family" | "frame" | "all"; off: ReadonlySet<string> }[] = [
  { name: "as shipped", kind: "baseline", off: new Set() },
  ...RULE_FAMILIES.map((r) => ({ name: r.name, kind: "family" as const, off: new Set([r.name]) })),
  ...FRAME_NAMES.map((f) => ({ name: f, kind: "frame" as const, off: new Set([`frame:${f}`]) })),
  { name: "learned heads alone", kind: "all", off: new Set([...RULE_FAMILIES.map((r) => r.name), ...FRAME_NAMES.map((f) => `frame:${f}`)]) },
];
const offSets = variants.map((v) => v.off);

const models = present.map((d) => ({ dataset: d, model: decodeModel(readFileSync(foldFile(d))), rows: heldOutRows(d) }));
const logits: FoldLogits[] = models.map(({ dataset, model, rows }) => heldOutLogits(model, rows, dataset));
log("held-out logits computed");

const results: HeldOut[][] = variants.map(() => []);
for (const { dataset, model, rows } of models) {
  const others = logits.filter((f) => f.dataset !== dataset);
  const calibrated: ModelFile = policy === "random" || others.length === 0
    ? model
    : withCalibration(model, fitFlagsAndSupport(others, { maxFpr, refit: policy === "refit", guardOnly: policy === "guard", guardRows: evaluation.guardRows ?? "benign" }));
  const engine = createEngine(calibrated);
  const outs: HeldOut[] = variants.map(() => ({ dataset, family, byCategory: {}, benign: 0, benignFlagged: 0, slices: {}, benignByCategory: {}, confusion: {} }));
  for (const e of rows) {
    const verdicts = engine.scoreVariants(e.text, offSets);
    const benign = CATEGORY_IDS.every((_, i) => e.labels[i] === 0);
    const shipped = verdicts[0]!;
    verdicts.forEach((categories, v) => {
      const out = outs[v]!;
      CATEGORY_IDS.forEach((c, i) => {
        const l = e.labels[i]!;
        // A category a rule set left unjudged scores 0 here, so every rule set is measured on the same rows
        // (sexual_minors has no head: without its rules most rows would drop out).
        if (l < 0 || !(c in shipped || categories[c])) return;
        const verdict = categories[c] ?? { score: 0, flagged: false };
        const bucket = (out.byCategory[c] ??= { s: [], y: [], f: [] });
        bucket.s.push(verdict.score);
        bucket.y.push(l);
        bucket.f.push(verdict.flagged);
      });
      if (benign) {
        out.benign++;
        if (CATEGORY_IDS.some((c) => categories[c]?.flagged)) out.benignFlagged++;
      }
    });
  }
  outs.forEach((o, v) => results[v]!.push(o));
  log(`${dataset}: ${rows.length} rows under ${variants.length} rule sets`);
}

type Figures = { auprc: Partial<Record<CategoryId, number>>; macro: number; fpr: number; benign: number; flagged: number };
const figures: Figures[] = results.map((rs) => {
  const pooled = summarize(rs);
  const auprc: Partial<Record<CategoryId, number>> = {};
  for (const c of CATEGORY_IDS) if (pooled[c]) auprc[c] = pooled[c]!.auprc;
  const list = Object.values(auprc);
  const benign = rs.reduce((n, r) => n + r.benign, 0);
  const flagged = rs.reduce((n, r) => n + r.benignFlagged, 0);
  return { auprc, macro: list.reduce((a, b) => a + b, 0) / Math.max(1, list.length), fpr: flagged / Math.max(1, benign), benign, flagged };
});
const base = figures[0]!;

/** Categories a family may flag (policy rows), or a frame keeps heads from flagging alone in. */
function categoriesOf(v: (typeof variants)[number]): CategoryId[] {
  if (v.kind === "family") return CATEGORY_IDS.filter((c) => POLICY[c].rules.includes(v.name));
  if (v.kind === "frame") return CATEGORY_IDS.filter((c) => (POLICY[c].suppressedBy as readonly string[]).includes(v.name));
  return CATEGORY_IDS.filter((c) => base.auprc[c] !== undefined);
}
const f3 = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? "–" : x.toFixed(3));
const signed = (x: number, digits = 3): string => `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;

// The acceptance sentences under each rule set, on the shipped model as the service loads it.
const shippedModel = decodeModel(readFileSync(values.model));
if (shippedModel.header.id !== evaluation.id) log(`warning: ${values.model} is ${shippedModel.header.id}, the evaluation is ${evaluation.id}`);
const failedUnder = variants.map((v) => {
  const classifier = withLanguageGate(createEngine(shippedModel, { disabled: v.off }));
  return failedAcceptanceSentences((text) => {
    const verdict = classifier.classify(text);
    if (verdict instanceof Promise) throw new Error("the embedded classifier answers synchronously");
    return CATEGORY_IDS.filter((c) => verdict.categories[c]?.flagged);
  });
});
const failedAsShipped = new Set(failedUnder[0]);
if (failedAsShipped.size > 0) log(`warning: the shipped model fails ${failedAsShipped.size} acceptance sentences as shipped`);
// What a family keeps passing: the sentences that fail without it and pass with it.
const acceptanceFailed: string[][] = failedUnder.map((failed, i) => (i === 0 ? failed : failed.filter((t) => !failedAsShipped.has(t))));

const lines: string[] = [];
lines.push("# Rule ledger", "");
lines.push(`Generated by \`npm run eval:rules\` (src/training/rule-ledger.ts); do not edit by hand. Model \`${evaluation.id}\`,`);
lines.push(`fold models of family \`${family}\`, held out one at a time: ${present.join(", ")}${missing.length ? ` (no fold model for ${missing.join(", ")})` : ""}.`);
lines.push(present.length > 1
  ? `Each held-out dataset is scored by the model that never saw it, calibrated on the other folds (policy \`${policy}\`), with the`
  : "The held-out dataset is scored by the model that never saw it (one fold: no other folds to calibrate on, so its own calibration), with the");
lines.push("full classifier and then with one rule family or frame switched off (`createEngine(model, { disabled })`).");
lines.push(`${cap > 0 ? `At most ${cap} distinct texts per dataset (a fixed sample). ` : ""}Benign rows: ${base.benign}; flagged as shipped: ${base.flagged} (${(100 * base.fpr).toFixed(2)} %).`, "");
lines.push("AUPRC is pooled over the folds, per category the family may flag (policy.ts); \"with -> without\" and the change the");
lines.push("family makes (with - without). Benign FP rate: share of benign held-out rows with any flag. A family pays when it raises");
lines.push(`its categories' AUPRC by ${AUPRC_STEP} or more without adding ${FPR_STEP * 100} % benign flags, or removes that many false positives.`);
lines.push(`Acceptance: of the ${EVERYDAY_MESSAGES.length + PLAIN_HARM.length} acceptance sentences (src/training/acceptance-sentences.ts), those the shipped model \`${shippedModel.header.id}\``);
lines.push(`fails with the family off and passes with it (${failedAsShipped.size} fail as shipped); a family the datasets cannot see is kept only while one fails without it.`, "");
lines.push(`As shipped: macro AUPRC ${f3(base.macro)}; ${CATEGORY_IDS.filter((c) => base.auprc[c] !== undefined).map((c) => `${c} ${f3(base.auprc[c])}`).join(", ")}.`, "");
lines.push("| rule family / frame | kind | categories: AUPRC with -> without (change) | macro change | benign FP rate with -> without | acceptance fails without it | verdict |");
lines.push("|---|---|---|---|---|---|---|");
variants.forEach((v, i) => {
  if (v.kind === "baseline") return;
  const fig = figures[i]!;
  const cats = categoriesOf(v).filter((c) => base.auprc[c] !== undefined);
  const gain = cats.reduce((sum, c) => sum + (base.auprc[c]! - (fig.auprc[c] ?? 0)), 0);
  const cells = cats.length === 0 ? "no held-out positives" : cats.map((c) => `${c} ${f3(base.auprc[c])} -> ${f3(fig.auprc[c])} (${signed(base.auprc[c]! - (fig.auprc[c] ?? 0))})`).join("; ");
  const fprCost = base.fpr - fig.fpr;
  const failed = acceptanceFailed[i]!.length;
  const verdict = v.kind === "all" ? "reference" : ledgerVerdict(gain, fprCost, failed);
  lines.push(`| ${v.name} | ${v.kind} | ${cells} | ${signed(base.macro - fig.macro)} | ${(100 * base.fpr).toFixed(2)} % -> ${(100 * fig.fpr).toFixed(2)} % | ${failed} | ${verdict} |`);
});
lines.push("", "Acceptance sentences failed with one family or frame off:", "");
variants.forEach((v, i) => {
  if (v.kind === "baseline" || v.kind === "all" || acceptanceFailed[i]!.length === 0) return;
  lines.push(`- ${v.name}: ${acceptanceFailed[i]!.map((t) => JSON.stringify(t)).join(", ")}`);
});
lines.push("");
writeFileSync(values.out, `${lines.join("\n")}`);
log(`wrote ${values.out}`);
