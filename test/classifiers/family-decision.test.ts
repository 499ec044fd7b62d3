import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeComparisons } from "../../src/training/comparison.js";
import { familyDecisions, ledgerForCard, type ComparedFamily } from "../../src/training/report.js";

const row = (mean: number, benign = 0, flagged = 0, extra: Partial<ComparedFamily> = {}): ComparedFamily => ({
  selection: { mean, pairs: 5, seconds: 1 }, pooled: {}, perDataset: [{ dataset: "d", benign, benignFlagged: flagged, categories: {} }], ...extra,
});

describe("the family decision rule in the model card", () => {
  it("a richer family wins only by more than 0.01 mean AUPRC without flagging more benign rows", () => {
    expect(familyDecisions("mlp", { mlp: row(0.25), conv: row(0.255) })).toContain("conv vs mlp: +0.005 mean AUPRC over 5 pairs: within 0.01. No compared family wins, so `mlp` ships.");
    expect(familyDecisions("mlp", { mlp: row(0.25, 100, 10), conv: row(0.3, 100, 10) })).toContain("conv vs mlp: +0.050 mean AUPRC over 5 pairs, benign flagged 10.0% (10/100) vs 10.0% (10/100): wins");
    expect(familyDecisions("mlp", { mlp: row(0.25, 100, 10), conv: row(0.3, 100, 11) })).toContain("flags more benign rows");
  });

  it("compares a family measured another way with its own paired baseline", () => {
    const text = familyDecisions("mlp", { mlp: row(0.4), "mlp-alone": row(0.25, 0, 0, { baseline: "mlp-alone" }), transformer: row(0.27, 0, 0, { baseline: "mlp-alone" }) });
    expect(text).toContain("transformer vs mlp-alone: +0.020 mean AUPRC over 5 pairs: wins");
    expect(text).not.toContain("mlp-alone vs");
  });

  it("the full-scale table's compact form names the shared baseline once", () => {
    const text = familyDecisions("mlp", { "mlp-alone": row(0.38, 100, 18, { baseline: "mlp-alone" }), transformer: row(0.39, 100, 29, { baseline: "mlp-alone" }) }, false);
    expect(text).toBe("By the same rule, against mlp-alone: transformer +0.010 (benign 29.0% vs 18.0%): flags more benign rows. No compared family wins, so `mlp` ships.");
  });

  it("a family measured against another baseline names it beside its verdict", () => {
    const text = familyDecisions("mlp", {
      "mlp-alone": row(0.38, 100, 18),
      conv: row(0.378, 100, 19, { baseline: "mlp-alone" }),
      "two mlps": row(0.385, 100, 20),
      "mlp + conv": row(0.387, 100, 19, { baseline: "two mlps" }),
    }, false);
    expect(text).toBe("By the same rule, against mlp-alone: conv -0.002 (benign 19.0% vs 18.0%): flags more benign rows; mlp + conv +0.002 vs two mlps (benign 19.0% vs 20.0%): within 0.01. No compared family wins, so `mlp` ships.");
  });
});

describe("merging compare files into the card's family comparison", () => {
  it("runs on the same folds share their columns; each family keeps its note and baseline", () => {
    const dir = mkdtempSync(join(tmpdir(), "compare-"));
    const write = (name: string, compare: Record<string, ComparedFamily>): string => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify({ subsample: 0.12, epochs: 2, folds: ["cad", "hatemoji"], compare }));
      return file;
    };
    const merged = mergeComparisons([write("a.json", { mlp: row(0.25) }), write("b.json", { transformer: row(0.3, 0, 0, { note: "model alone", baseline: "mlp-alone" }) })]);
    expect(merged.folds).toEqual(["cad", "hatemoji"]);
    expect(Object.keys(merged.compare)).toEqual(["mlp", "transformer"]);
    expect(merged.compare["transformer"]).toMatchObject({ note: "model alone", baseline: "mlp-alone", selection: { mean: 0.3, pairs: 5 } });
  });

  it("keeps a family's pooled figures only when one run measured it (they do not add across folds)", () => {
    const dir = mkdtempSync(join(tmpdir(), "compare-"));
    const pooled = { hate: { auprc: 0.5, positives: 10, negatives: 10 } } as unknown as ComparedFamily["pooled"];
    const write = (name: string, compare: Record<string, ComparedFamily>): string => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify({ subsample: 1, epochs: 2, folds: [name], compare }));
      return file;
    };
    const merged = mergeComparisons([write("a.json", { mlp: row(0.25, 0, 0, { pooled }), transformer: row(0.3, 0, 0, { pooled }) }), write("b.json", { mlp: row(0.27, 0, 0, { pooled }) })]);
    expect(merged.compare["transformer"]?.pooled).toEqual(pooled);
    expect(merged.compare["mlp"]?.pooled).toEqual({});
  });

  it("a comparison carried over from an earlier model keeps whose training data it measured", () => {
    const dir = mkdtempSync(join(tmpdir(), "compare-"));
    const file = join(dir, "carried.json");
    writeFileSync(file, JSON.stringify({ subsample: 1, epochs: 2, folds: ["cad"], compare: { mlp: row(0.25) }, measuredOn: "text-embedding-mlp-2026-11-h" }));
    expect(mergeComparisons([file]).measuredOn).toBe("text-embedding-mlp-2026-11-h");
    const fresh = join(dir, "fresh.json");
    writeFileSync(fresh, JSON.stringify({ subsample: 1, epochs: 2, folds: ["cad"], compare: { mlp: row(0.25) } }));
    expect("measuredOn" in mergeComparisons([fresh])).toBe(false);
  });
});

describe("the rule ledger as the card shows it", () => {
  it("drops the categories a family leaves unchanged to the third decimal, says so when none changed, and gives the benign rate without the family only", () => {
    const table = [
      "| rule family / frame | kind | categories: AUPRC with -> without (change) | macro change | benign FP rate with -> without | verdict |",
      "| threats | family | harassment 0.355 -> 0.355 (+0.000); harassment_threatening 0.046 -> 0.030 (+0.016) | +0.002 | 10.48 % -> 10.48 % | pays |",
      "| negated | frame | harassment 0.355 -> 0.355 (-0.000); hate 0.619 -> 0.619 (+0.000) | -0.000 | 10.48 % -> 10.81 % | pays |",
    ].join("\n");
    const lines = ledgerForCard(table).split("\n");
    expect(lines[0]).toBe("| rule family / frame | kind | categories: AUPRC with -> without (change) | macro change | benign FP rate without | verdict |");
    expect(lines[1]).toBe("| threats | family | harassment_threatening 0.046 -> 0.030 (+0.016) | +0.002 | 10.48 % | pays |");
    expect(lines[2]).toBe("| negated | frame | none changed | -0.000 | 10.81 % | pays |");
  });
});
