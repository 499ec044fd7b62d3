import { expect } from "vitest";
import { featuresOfTokens, tokenFeatures, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { createMlpEnsembleScorer } from "../../src/classifiers/model/mlp-ensemble-scorer.js";
import { createMlpScorer, type MlpWeights } from "../../src/classifiers/model/scorers.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { createPrng } from "../../src/training/prng.js";

/**
 * What the tests of the pooling probes (--max-pool, --attention-pool: the hidden layer reads the
 * bag's scaled sum and a second pooling of its rows, w1 being hidden x 2 dim) share: a small random
 * network, one window, and the checks that do not depend on the second pooling's formula.
 */
export const spec = { buckets: 1 << 10, minN: 3, maxN: 5 };
export const heads = 3, dim = 4, hidden = 5;

/** A random network of the shape above; `pooling` names the second pooling (its fields of MlpWeights). */
export function randomPooledNetwork(seed: number, pooling: (rand: () => number) => Partial<MlpWeights>): MlpWeights {
  const rand = createPrng(seed);
  const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
  const extra = pooling(rand);
  return {
    buckets: spec.buckets, heads, dim, hidden, embScale: 0.013, ...extra,
    emb: Int8Array.from({ length: spec.buckets * dim }, () => Math.round((rand() * 2 - 1) * 100)),
    w1: f32(hidden * 2 * dim), b1: f32(hidden), w2: f32(heads * hidden), b2: f32(heads),
  };
}

export const text = normalizeForMatching("You are a stupid idiot and everyone at the meeting knows it");
export const tokens = tokenize(text);
export const tf = tokenFeaturesOf(text, tokens, spec);
export const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);

/** The heads' logits from the input layer h0 (sum, then the second pooling), computed plainly. */
export function logitsOfInput(net: MlpWeights, h0: Float64Array): number[] {
  return Array.from({ length: heads }, (_, k) => {
    let s = net.b2[k]!;
    for (let m = 0; m < hidden; m++) {
      let a = net.b1[m]!;
      for (let d = 0; d < 2 * dim; d++) a += net.w1[m * 2 * dim + d]! * h0[d]!;
      s += net.w2[k * hidden + m]! * Math.max(0, a);
    }
    return s;
  });
}

/**
 * The batched explainer gives each token what attribution() gives it alone, also when another
 * window was scored between the explainer's making and its use; and the second pooling adds
 * credit beyond the sum's share for some token.
 */
export function expectExplanationsWithPoolingCredit(net: MlpWeights): void {
  const scorer = createMlpScorer(net);
  scorer.logits(window, new Float64Array(heads));
  const explain = scorer.explainer(window, tf, 0, tokens.length);
  scorer.logits(window.subarray(0, 7), new Float64Array(heads));
  const explained = Array.from({ length: heads }, (_, h) => explain(h));
  const sumShare = createMlpScorer({ ...net, w1: net.w1.map((v, j) => (j % (2 * dim) < dim ? v : 0)) });
  let credited = 0;
  for (let h = 0; h < heads; h++) {
    tokens.forEach((t, i) => {
      const subset: number[] = [];
      tokenFeatures(text, t, spec, (b) => subset.push(b));
      const one = scorer.attribution(window, subset, h);
      expect(explained[h]![i]).toBeCloseTo(one, 9);
      if (Math.abs(one - sumShare.attribution(window, subset, h)) > 1e-9) credited++;
    });
  }
  expect(credited).toBeGreaterThan(0);
}

/** An ensemble of such networks scores the mean of its members' logits (member by member). */
export function expectEnsembleOfMembers(members: MlpWeights[]): void {
  const out = new Float64Array(heads);
  createMlpEnsembleScorer(members).logits(window, out);
  const each = members.map((m) => {
    const o = new Float64Array(heads);
    createMlpScorer(m).logits(window, o);
    return o;
  });
  for (let k = 0; k < heads; k++) expect(out[k]).toBeCloseTo(each.reduce((s, o) => s + o[k]!, 0) / members.length, 12);
}
