import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { featuresOfTokens, featurize, tokenFeatures, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { createLinearScorer, createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { makeLabels } from "../../src/training/datasets/example.js";
import { isLookalike } from "../../src/training/corpus.js";
import { fitHeldOutCalibration, thresholdForFpr, type FoldLogits } from "../../src/training/heldout-calibration.js";
import { fitPlatt } from "../../src/training/metrics.js";
import { createPrng } from "../../src/training/prng.js";

const spec = { buckets: 1 << 12, minN: 3, maxN: 5 };
const text = normalizeForMatching("You are a stupid idiot, you are a stupid idiot! The council met on Tuesday; the council met again.");

describe("shared per-word features", () => {
  it("window features from per-token features equal featurize() on the same range", () => {
    const tokens = tokenize(text);
    const tf = tokenFeaturesOf(text, tokens, spec);
    for (const [a, b] of [[0, tokens.length], [2, 9], [5, 6]] as const) {
      const from = tokens[a]!.start;
      const to = b < tokens.length ? tokens[b]!.start : text.length;
      expect([...featuresOfTokens(tf, spec.buckets, a, b)].sort()).toEqual([...featurize(text, spec, from, to)].sort());
    }
    // Repeated words share one slice of features.
    expect(tf.words).toBeLessThan(tokens.length);
  });

  it("batched explanations equal per-token attribution for both families", () => {
    const rand = createPrng(7);
    const heads = 3, dim = 8, hidden = 6;
    const int8 = (n: number): Int8Array => Int8Array.from({ length: n }, () => Math.round((rand() * 2 - 1) * 100));
    const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
    const scorers = [
      createLinearScorer({ buckets: spec.buckets, heads, w: int8(spec.buckets * heads), scale: f32(heads), bias: f32(heads) }),
      createMlpScorer({ buckets: spec.buckets, heads, dim, hidden, emb: int8(spec.buckets * dim), embScale: 0.01, w1: f32(hidden * dim), b1: f32(hidden), w2: f32(heads * hidden), b2: f32(heads) }),
    ];
    const tokens = tokenize(text);
    const tf = tokenFeaturesOf(text, tokens, spec);
    const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);
    for (const scorer of scorers) {
      scorer.logits(window, new Float64Array(heads));
      const ex = scorer.explainer(window, tf, 0, tokens.length);
      for (let h = 0; h < heads; h++) {
        const batch = ex(h);
        tokens.forEach((t, i) => {
          const subset: number[] = [];
          tokenFeatures(text, t, spec, (b) => subset.push(b));
          expect(batch[i]).toBeCloseTo(scorer.attribution(window, subset, h), 12);
        });
      }
    }
  });
});

describe("held-out calibration", () => {
  it("Platt scaling stays finite and monotonic on large, nearly separable logits", () => {
    const x: number[] = [], y: number[] = [];
    for (let i = 0; i < 500; i++) {
      x.push(40 + i * 0.1, -40 - i * 0.1, 60 + i, -5 + (i % 7));
      y.push(1, 0, 1, i % 3 === 0 ? 1 : 0);
    }
    const p = fitPlatt(x, y);
    expect(Number.isFinite(p.a) && Number.isFinite(p.b)).toBe(true);
    expect(p.a).toBeGreaterThan(0);
    expect(p.a).toBeLessThan(10);
  });

  it("thresholds cap the false-positive rate and need data of both classes", () => {
    expect(thresholdForFpr([0.9, 0.8, 0.7, 0.6, 0.5], [0, 0, 0, 0, 1], 0.25)).toBeGreaterThan(0.8);
    const H = CATEGORY_IDS.length;
    const hate = CATEGORY_IDS.indexOf("hate");
    const rand = createPrng(3);
    const fold = (dataset: string, n: number, posRate: number): FoldLogits => {
      const logits = new Float64Array(n * 2);
      const labels = new Int8Array(n * H).fill(-1);
      for (let r = 0; r < n; r++) {
        const y = rand() < posRate ? 1 : 0;
        labels[r * H + hate] = y;
        logits[r * 2] = (y ? 2 : -2) + (rand() * 2 - 1) * 3;
        logits[r * 2 + 1] = 0;
      }
      return { dataset, heads: ["hate", "sexual"], rows: n, logits, labels, platt: {} };
    };
    const cal = fitHeldOutCalibration([fold("a", 400, 0.3), fold("b", 400, 0.5)], { maxFpr: 0.05, refit: true });
    expect(cal.calibration.hate?.a).toBeGreaterThan(0);
    expect(cal.thresholds.hate).toBeGreaterThanOrEqual(0.1);
    expect(cal.thresholds.hate).toBeLessThanOrEqual(0.9);
    const r = cal.reports.find((x) => x.category === "hate")!;
    expect(r.chosen.precision).toBeGreaterThan(0.6);
    expect(r.curve.length).toBeGreaterThan(3);
    // No labels for sexual: left to the random-split calibration.
    expect(cal.calibration.sexual).toBeUndefined();
  });

  it("marks benign contrast rows as look-alikes, not their hateful twins", () => {
    const benign = makeLabels({}, "benign");
    expect(isLookalike({ dataset: "hatecheck", slice: "counter_quote_nh", labels: benign })).toBe(true);
    expect(isLookalike({ dataset: "hatecheck", slice: "derog_neg_emote_h", labels: makeLabels({ hate: 1 }, "unknown") })).toBe(false);
    expect(isLookalike({ dataset: "xstest", slice: "homonyms", labels: benign })).toBe(true);
    expect(isLookalike({ dataset: "clinc150", slice: "x", labels: benign })).toBe(false);
  });
});

describe("threat phrases (harassment_threatening rule)", () => {
  it("matches direct threats at the reader, not everyday uses of the same verbs", async () => {
    const { getLexicons, scanText, strongestHit } = await import("../../src/classifiers/rules/lexicon/index.js");
    const threats = getLexicons().threats;
    const strength = (t: string): number => strongestHit(scanText(threats, normalizeForMatching(t)).hits);
    expect(strength("I am going to kill you and your whole family")).toBe(1);
    expect(strength("i will f1nd you and k1ll you")).toBe(1);
    expect(strength("I killed it at the gym today")).toBe(0);
    expect(strength("this traffic is going to kill me")).toBeLessThan(0.8);
  });
});
