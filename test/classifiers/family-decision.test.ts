import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeComparisons } from "../../src/training/comparison.js";
import { familyDecisions, type ComparedFamily } from "../../src/training/report.js";

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
});
