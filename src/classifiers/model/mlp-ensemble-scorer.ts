import { createEnsembleScorer, type MemberHeadWeights, memberCombiner } from "./ensemble-scorer.js";
import { createMlpScorer, createRowSummer, type MlpWeights, type Scorer, scaledBagInto } from "./scorers.js";
import { createDenseRelu } from "./wasm-dense-relu.js";
import { allocateRowTable } from "./wasm-row-table.js";

/**
 * Embedding-bag networks of one shape, averaged (createEnsembleScorer), with their embedding rows
 * stored side by side: bucket b's row of member 0, then member 1's, and so on. The bag is most of a
 * short text's scoring time (createRowSummer), so a feature then costs one read of adjacent rows
 * instead of one read per member's table, summed with SIMD. The bag sums are
 * integers and each member scores its slice of the sums as its own logits() would (logitsOfSums),
 * so logits are the same to the bit as the plain ensemble's; explanations go through the members,
 * which read their slice of the same table and reuse the hidden layer of the window scored last.
 * Nothing the scorer keeps points into the members' own tables (their small layers are copied), so
 * a caller that drops the decoded model file frees them: memory stays one table's worth.
 */
export function createMlpEnsembleScorer(members: readonly MlpWeights[], weights?: MemberHeadWeights): Scorer {
  const first = members[0]!;
  const { buckets, heads, dim, hidden } = first;
  const ownTables = members.every((m) => (m.rowStride ?? m.dim) === m.dim && (m.rowOffset ?? 0) === 0);
  const sameShape = members.every((m) => m.buckets === buckets && m.heads === heads && m.dim === dim && m.hidden === hidden);
  if ((members.length === 1 && !weights) || !sameShape || !ownTables) return createEnsembleScorer(members.map(createMlpScorer), weights);
  const n = members.length;
  const wide = dim * n;
  const table = sideBySide(members.map((m) => m.emb), buckets, dim);
  const layers = members.map((m, k) => ({ ...m, emb: table, rowStride: wide, rowOffset: k * dim, w1: m.w1.slice(), b1: m.b1.slice(), w2: m.w2.slice(), b2: m.b2.slice() }));
  const scorers = layers.map(createMlpScorer);
  const plain = createEnsembleScorer(scorers, weights);
  const combine = memberCombiner(n, heads, weights);
  const sumRows = createRowSummer(table, wide);
  // Every member's hidden layer in one SIMD call where WebAssembly allows (wasm-dense-relu.ts).
  const dense = createDenseRelu(layers.map((m) => ({ w: m.w1, b: m.b1 })), hidden, dim);
  const hiddenOf = dense ? layers.map((_, k) => dense.output.subarray(k * hidden, (k + 1) * hidden)) : [];
  // Scratch for the window being scored, as scoring is synchronous.
  const acc = new Int32Array(wide);
  const scratch = new Float64Array(heads);
  return {
    heads,
    logits(features, out) {
      sumRows(features, 0, features.length, acc);
      if (dense) {
        for (let k = 0; k < n; k++) scaledBagInto(acc, k * dim, layers[k]!.embScale, features.length, dense.input, k * dim, dim);
        dense.run();
      }
      for (let k = 0; k < n; k++) {
        const memberOut = k === 0 ? out : scratch;
        if (dense) scorers[k]!.logitsOfHidden(features, hiddenOf[k]!, memberOut);
        else scorers[k]!.logitsOfSums(features, acc, k * dim, memberOut);
        if (k === 0) combine.start(out);
        else combine.add(out, scratch, k);
      }
      combine.finish(out);
    },
    attribution: plain.attribution,
    explainer: plain.explainer,
  };
}

/**
 * One table of the members' rows side by side: bucket b's row of member 0, then member 1's, and so
 * on, in WebAssembly memory so that its rows are summed with SIMD (wasm-row-table.ts). Built at
 * load, so it copies 32-bit words where rows allow (a quarter of the steps, and no
 * subarray per row: 0.06 s against 0.15-0.26 s for the default four-member model).
 */
function sideBySide(tables: readonly Int8Array[], buckets: number, dim: number): Int8Array {
  const n = tables.length;
  const wide = dim * n;
  const out = allocateRowTable(buckets * wide, wide);
  if (dim % 4 !== 0 || tables.some((t) => t.byteOffset % 4 !== 0)) {
    for (let b = 0; b < buckets; b++) {
      for (let k = 0; k < n; k++) out.set(tables[k]!.subarray(b * dim, (b + 1) * dim), b * wide + k * dim);
    }
    return out;
  }
  const outWords = new Int32Array(out.buffer, out.byteOffset, out.length >> 2);
  const perRow = dim >> 2;
  const wideWords = wide >> 2;
  for (let k = 0; k < n; k++) {
    const t = tables[k]!;
    const words = new Int32Array(t.buffer, t.byteOffset, (buckets * dim) >> 2);
    for (let b = 0; b < buckets; b++) {
      const from = b * perRow;
      const to = b * wideWords + k * perRow;
      for (let w = 0; w < perRow; w++) outWords[to + w] = words[from + w]!;
    }
  }
  return out;
}
