/**
 * Measures families trained outside TypeScript (training/transformer/) with the project's own metric
 * code: reads the rows transformer-export.ts wrote and a family's raw logits (<tag>-<fold>-calib and
 * -heldout .scores.json), then per fold: Platt scaling and best-F1 thresholds on the calibration rows
 * (as build-model.ts), the benign guard from the other folds' held-out logits (heldout-calibration.ts,
 * policy "guard"), and mean AUPRC over (held-out dataset, category) pairs with 10+ of each class
 * (evaluate.ts meanFoldAuprc). Model alone: no lexicon or rules (the engine cannot take these logits).
 *
 *   npx tsx src/training/transformer-score.ts --data /work/cache/transformer --tags transformer,mlp \
 *     --compare compare-transformer.json --names transformer,embedding-mlp-alone --baseline mlp
 *
 * A tag "a+b" measures the mean of two families' logits (an ensemble of both, as the engine averages
 * members). --compare writes the families in train.ts's compare.json shape (train.ts --comparison merges it into
 * the card), each noted "model alone" and decided against --baseline's family (same rows, same measure).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import { meanFoldAuprc, summarize, type HeldOut } from "./evaluate.js";
import { DEFAULT_MAX_FPR, fitHeldOutCalibration, type FoldLogits } from "./heldout-calibration.js";
import { chooseThreshold, fitPlatt, type Platt } from "./metrics.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "/work/cache/transformer" },
    tags: { type: "string", default: "transformer" },
    // Fit Platt and thresholds on this fixed hash share of the calibration rows, for every family
    // alike (the Python run scores only that share when the CPU budget is short).
    "calib-share": { type: "string", default: "1" },
    compare: { type: "string" },
    // Family names in the compare file, one per tag (default: the tags).
    names: { type: "string" },
    baseline: { type: "string" },
    folds: { type: "string" },
  },
});
const CALIB_SHARE = Number(values["calib-share"]);
/** finetune.py's kept_row: a fixed hash subsample of calibration row indices. */
const keptRow = (i: number): boolean => (Math.imul(i, 2654435761) >>> 0) % 1000 < CALIB_SHARE * 1000;
const dir = values.data;
const H = CATEGORY_IDS.length;
interface Meta { folds: string[]; heads: CategoryId[] }
const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as Meta;
// --folds: measure on these of the exported folds only (a family scored on some of them).
if (values.folds) meta.folds = meta.folds.filter((d) => values.folds!.split(",").includes(d));
const K = meta.heads.length;
const jsonl = <T>(name: string): T[] => readFileSync(join(dir, name), "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as T);
const sigmoid = (p: Platt, x: number): number => 1 / (1 + Math.exp(-(p.a * x + p.b)));

/** Per-fold labels (read once, shared by every family). */
const rows = Object.fromEntries(meta.folds.map((d) => [d, {
  calib: jsonl<{ y: number[]; w: number }>(`fold-${d}-calib.jsonl`),
  held: jsonl<{ y: number[] }>(`heldout-${d}.jsonl`),
}]));

interface Scores { logits: number[][]; rows?: number[] | null; seconds?: number }
/**
 * One family's scores of fold d ("calib" or "heldout"); a tag "a+b" is the mean of a's and b's
 * logits (two families as one ensemble; both must have scored the same rows).
 */
function readScores(tag: string, d: string, part: "calib" | "heldout"): Scores {
  const parts = tag.split("+").map((t) => JSON.parse(readFileSync(join(dir, `${t}-${d}-${part}.scores.json`), "utf8")) as Scores);
  if (parts.length === 1) return parts[0]!;
  const [first, ...rest] = parts;
  if (rest.some((p) => p.logits.length !== first!.logits.length || String(p.rows ?? null) !== String(first!.rows ?? null))) throw new Error(`${tag} ${d}: the families scored different rows`);
  const logits = first!.logits.map((row, i) => row.map((v, k) => (v + rest.reduce((sum, p) => sum + p.logits[i]![k]!, 0)) / parts.length));
  return { logits, rows: first!.rows ?? null, seconds: parts.reduce((sum, p) => sum + (p.seconds ?? 0), 0) };
}

function measure(tag: string): { summary: Record<string, unknown>; heldOut: HeldOut[]; seconds: number } | undefined {
  if (!meta.folds.every((d) => tag.split("+").every((t) => existsSync(join(dir, `${t}-${d}-heldout.scores.json`))))) return undefined;
  const folds = meta.folds.map((d) => {
    const scored = readScores(tag, d, "calib");
    // Logits by calibration row index (a family may have scored only the kept share).
    const index = scored.rows ?? scored.logits.map((_, i) => i);
    const calib = new Map(index.map((r, i) => [r, scored.logits[i]!]));
    const held = readScores(tag, d, "heldout");
    const { calib: cRows, held: hRows } = rows[d]!;
    if (held.logits.length !== hRows.length) throw new Error(`${tag} ${d}: score and row counts differ`);
    // build-model.ts: Platt on the calibration rows, best-F1 threshold (flat top within 0.01), clamped.
    const platt: Partial<Record<CategoryId, Platt>> = {};
    const thresholds: Partial<Record<CategoryId, number>> = {};
    meta.heads.forEach((cat, k) => {
      const x: number[] = [], y: number[] = [], w: number[] = [];
      cRows.forEach((r, i) => {
        if (r.y[k]! < 0 || !keptRow(i)) return;
        const z = calib.get(i);
        if (!z) throw new Error(`${tag} ${d}: calibration row ${i} not scored (use the --calib-share it was scored with)`);
        x.push(z[k]!);
        y.push(r.y[k]!);
        w.push(r.w);
      });
      const pl = fitPlatt(x, y, w);
      platt[cat] = pl;
      const chosen = chooseThreshold(x.map((v) => sigmoid(pl, v)), y, w, undefined, 0.01);
      thresholds[cat] = y.filter((v) => v === 1).length >= 10 ? Math.min(0.9, Math.max(0.3, chosen.threshold)) : 0.5;
    });
    const fl: FoldLogits = {
      dataset: d, heads: meta.heads, rows: hRows.length, logits: Float64Array.from(held.logits.flat()),
      labels: Int8Array.from(hRows.flatMap((r) => r.y)), platt,
    };
    return { d, fl, platt, thresholds, seconds: held.seconds ?? 0 };
  });
  const neutral: Record<string, { rows: number; flagged: number }> = {};
  const heldOut: HeldOut[] = folds.map(({ d, fl, platt, thresholds }) => {
    // Nested, as train.ts: the benign guard comes from the other folds' held-out logits only.
    const guard = fitHeldOutCalibration(folds.filter((f) => f.d !== d).map((f) => f.fl), { maxFpr: DEFAULT_MAX_FPR, guardOnly: true });
    const bar = (c: CategoryId): number => Math.max(thresholds[c] ?? 0.5, guard.thresholds[c] ?? 0);
    const out: HeldOut = { dataset: d, family: tag, byCategory: {}, benign: 0, benignFlagged: 0, slices: {}, benignByCategory: {}, confusion: {} };
    for (let r = 0; r < fl.rows; r++) {
      let anyFlag = false;
      const labels = fl.labels.subarray(r * H, (r + 1) * H);
      meta.heads.forEach((cat, k) => {
        const s = sigmoid(platt[cat]!, fl.logits[r * K + k]!);
        const flagged = s >= bar(cat);
        if (flagged) anyFlag = true;
        const l = labels[CATEGORY_IDS.indexOf(cat)]!;
        if (l < 0) return;
        const b = (out.byCategory[cat] ??= { s: [], y: [], f: [] });
        b.s.push(s);
        b.y.push(l);
        b.f.push(flagged);
      });
      if (labels.every((v) => v === 0)) {
        out.benign++;
        if (anyFlag) out.benignFlagged++;
      }
      // "Neutral" rows (the Reddit measure): labelled, and positive for nothing.
      if (labels.some((v) => v === 0) && !labels.some((v) => v === 1)) {
        const n = (neutral[d] ??= { rows: 0, flagged: 0 });
        n.rows++;
        if (anyFlag) n.flagged++;
      }
    }
    return out;
  });
  const perDataset = Object.fromEntries(heldOut.map((r) => {
    const cats = summarize([r]);
    const pairs = Object.fromEntries(Object.entries(cats).filter(([, c]) => c.positives >= 10 && c.negatives >= 10).map(([c, v]) => [c, Number(v.auprc.toFixed(3))]));
    const n = neutral[r.dataset] ?? { rows: 0, flagged: 0 };
    return [r.dataset, { auprc: pairs, benign: r.benign, benignFlagged: r.benignFlagged, neutral: n.rows, neutralFlagged: n.flagged, neutralFlaggedShare: n.rows > 0 ? Number((n.flagged / n.rows).toFixed(4)) : null }];
  }));
  const sel = meanFoldAuprc(heldOut);
  const seconds = Math.round(folds.reduce((s, f) => s + f.seconds, 0));
  return { heldOut, seconds, summary: { family: tag, mean: Number(sel.mean.toFixed(4)), pairs: sel.pairs, perDataset, benignFlagged: heldOut.reduce((s, r) => s + r.benignFlagged, 0), benign: heldOut.reduce((s, r) => s + r.benign, 0), seconds } };
}

const tags = values.tags.split(",");
const measured = tags.map((t) => measure(t));
console.log(JSON.stringify(Object.fromEntries(tags.map((t, i) => [t, measured[i]?.summary ?? "no scores"])), null, 1));
if (values.compare) {
  const names = values.names?.split(",") ?? tags;
  const nameOf = (tag: string): string => names[tags.indexOf(tag)] ?? tag;
  const compare = Object.fromEntries(tags.flatMap((t, i) => {
    const m = measured[i];
    if (!m) return [];
    const sel = meanFoldAuprc(m.heldOut);
    return [[nameOf(t), {
      selection: { ...sel, seconds: m.seconds }, pooled: summarize(m.heldOut),
      perDataset: m.heldOut.map((r) => ({ dataset: r.dataset, benign: r.benign, benignFlagged: r.benignFlagged, categories: summarize([r]) })),
      note: "model alone (no lexicon or rules)",
      baseline: values.baseline && values.baseline !== t ? nameOf(values.baseline) : undefined,
    }]];
  }));
  const meta2 = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as { subsample: number };
  writeFileSync(values.compare, `${JSON.stringify({ subsample: meta2.subsample, epochs: 2, folds: meta.folds, compare }, null, 1)}\n`);
}
