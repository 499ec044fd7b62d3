import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { createMlpScorer } from "../classifiers/model/scorers.js";
import { exampleRuns, type Corpus } from "./corpus.js";
import { createPrng, shuffleInPlace } from "./prng.js";
import { positiveWeights, quantizeClipped, type TrainedModel, type TrainOptions } from "./trainer.js";
import { createEmbeddingBagKernels } from "./wasm-embedding-bag.js";

/**
 * Soft targets from a stronger model (the GPU-trained transformer, training/transformer/gpu_run.py):
 * round(255 p) per corpus row and head, in head order. They stand in for the labels a row's source
 * does not give (-1), so every head also learns from the other sources' text; given labels win.
 */
export interface TeacherTargets {
  probs: Uint8Array;
  /** Loss weight of a soft target relative to a given label. */
  weight: number;
  /**
   * The heads (indices into the trained heads) that learn the teacher; absent: every head. A teacher
   * wrong on one category's everyday sentences (the transformer on "draw blood") can still teach the
   * others.
   */
  heads?: ReadonlySet<number>;
}

/** Where one model's targets live: name = the held-out dataset, or "final" for the shipped model. */
export const teacherFile = (dir: string, name: string): string => join(dir, `teacher-${name}.u8`);

/** The names of the targets a folder holds (teacherFile's names read back). */
export const teacherNames = (dir: string): string[] => readdirSync(dir).flatMap((f) => /^teacher-(.+)\.u8$/.exec(f)?.[1] ?? []);

/** One model's targets as stored (unpack_scores.py or teacher-export.ts wrote them). */
export const readTeacherProbs = (dir: string, name: string): Uint8Array => new Uint8Array(readFileSync(teacherFile(dir, name)));

/** Reads one model's targets, taught at `weight` of a given label. */
export function readTeacherTargets(dir: string, name: string, weight: number, heads?: ReadonlySet<number>): TeacherTargets {
  return { probs: readTeacherProbs(dir, name), weight, ...(heads ? { heads } : {}) };
}

/**
 * Which windows of a long positive example learn its label. A source labels a whole post, but the
 * engine scores a long text by its worst window, and most windows of a long abusive or at-risk post
 * are ordinary prose: "all" teaches every window the label (so ordinary prose learns harm); "max"
 * (multiple-instance learning) keeps the label on the window the model scores highest for that head
 * from the second epoch on, the other windows saying nothing for it (or the teacher's target, with
 * a teacher). Negative labels stay on every window: no window of a harmless text is harmful.
 */
export type PositiveWindows = "all" | "max";

/** Sets silenced[r * K + k] on every window of a group but the one with head k's highest logit, for each head the example is positive for. */
export function choosePositiveWindows(groups: readonly Uint32Array[], K: number, logits: (r: number, out: Float64Array) => void, positive: (r: number, k: number) => boolean, silenced: Uint8Array): void {
  const out = new Float64Array(K);
  for (const group of groups) {
    const scores = new Float64Array(group.length * K);
    group.forEach((r, j) => {
      logits(r, out);
      scores.set(out, j * K);
    });
    for (let k = 0; k < K; k++) {
      if (!positive(group[0]!, k)) continue;
      let best = 0;
      for (let j = 1; j < group.length; j++) if (scores[j * K + k]! > scores[best * K + k]!) best = j;
      group.forEach((r, j) => { silenced[r * K + k] = j === best ? 0 : 1; });
    }
  }
}

/**
 * The richer family: fastText-style bag of hashed n-gram embeddings, one shared ReLU hidden layer,
 * one sigmoid output per head, masked loss, AdaGrad. Shared layers let rare heads borrow from
 * common ones; the hidden layer allows feature interactions a linear model cannot express.
 * `buckets` is the feature table's row count (features.ts featureRows).
 */
export function trainMlp(corpus: Corpus, rows: Uint32Array, buckets: number, opts: TrainOptions & { dim?: number; hidden?: number; lr?: number; teacher?: TeacherTargets; positiveWindows?: PositiveWindows; wasm?: boolean }): TrainedModel {
  const H = CATEGORY_IDS.length;
  const K = opts.heads.length;
  const D = opts.dim ?? 32;
  const M = opts.hidden ?? 48;
  const lr = opts.lr ?? 0.05;
  const rand = createPrng(opts.seed);
  /** n uniform values in [-s, s), drawn in index order, into `into` (a table that lives elsewhere) or a new array. */
  const init = (n: number, s: number, into: Float32Array = new Float32Array(n)): Float32Array => {
    for (let i = 0; i < n; i++) into[i] = (rand() * 2 - 1) * s;
    return into;
  };
  // The table's two loops in WebAssembly: the same weights to the bit, about twice as fast
  // (wasm-embedding-bag.ts). (`wasm: false`: the JavaScript loops only; tests hold the two equal.)
  const kernels = opts.wasm !== false ? createEmbeddingBagKernels(buckets, D) : undefined;
  const emb = init(buckets * D, 0.1, kernels?.emb);
  const w1 = init(M * D, Math.sqrt(6 / (M + D)));
  const b1 = new Float32Array(M).fill(0.01);
  const w2 = init(K * M, Math.sqrt(6 / (K + M)));
  const b2 = new Float32Array(K);
  const gEmb = kernels?.gEmb ?? new Float32Array(buckets * D);
  const gW1 = new Float32Array(M * D), gB1 = new Float32Array(M), gW2 = new Float32Array(K * M), gB2 = new Float32Array(K);
  const posW = positiveWeights(corpus, rows, opts.heads);
  const teacher = opts.teacher;
  const learnsTeacher = (k: number): boolean => teacher !== undefined && (!teacher.heads || teacher.heads.has(k));
  if (teacher && teacher.probs.length !== corpus.rows * K) throw new Error(`teacher: ${teacher.probs.length / K} rows for a corpus of ${corpus.rows} (packed from another corpus?)`);
  const order = Uint32Array.from(rows);
  const silenced = opts.positiveWindows === "max" ? new Uint8Array(corpus.rows * K) : undefined;
  const groups = silenced ? exampleRuns(corpus, rows).filter((g) => g.length > 1) : [];
  /** Row r's label for head k as its source gives it (-1 unknown). */
  const given = (r: number, k: number): number => corpus.labels[r * H + opts.heads[k]!]!;
  /** The label head k learns from row r: the given one, unless a positive is silenced on this window. */
  const label = (r: number, k: number): number => {
    const y = given(r, k);
    return y === 1 && silenced?.[r * K + k] === 1 ? -1 : y;
  };
  const h0 = new Float64Array(D), h1 = new Float64Array(M), dz = new Float64Array(K), dh1 = new Float64Array(M), dh0 = new Float64Array(D);
  const step = (p: Float32Array, g: Float32Array, k: number, grad: number): void => {
    g[k]! += grad * grad;
    p[k]! -= (lr * grad) / Math.sqrt(g[k]! + 1e-8);
  };
  /**
   * The hidden layer of a row's features [from, to): a0 = their bag scaled by 1/sqrt(count);
   * a1 = ReLU(W1 a0 + b1). Returns the scale, which the bag's gradient shares.
   */
  const hidden = (from: number, to: number, a0: Float64Array, a1: Float64Array): number => {
    const norm = 1 / Math.sqrt(Math.max(1, to - from));
    if (!kernels?.bagSum(corpus.feats, from, to, a0)) {
      a0.fill(0);
      for (let i = from; i < to; i++) {
        const base = corpus.feats[i]! * D;
        for (let d = 0; d < D; d++) a0[d]! += emb[base + d]!;
      }
    }
    for (let d = 0; d < D; d++) a0[d]! *= norm;
    for (let m = 0; m < M; m++) {
      let s = b1[m]!;
      for (let d = 0; d < D; d++) s += w1[m * D + d]! * a0[d]!;
      a1[m] = s > 0 ? s : 0;
    }
    return norm;
  };
  /** Head k's raw logit from a hidden layer. */
  const headLogit = (k: number, a1: Float64Array): number => {
    let s = b2[k]!;
    for (let m = 0; m < M; m++) s += w2[k * M + m]! * a1[m]!;
    return s;
  };
  /** Logits of row r. */
  const f0 = new Float64Array(D), f1 = new Float64Array(M);
  const forwardLogits = (r: number, out: Float64Array): void => {
    hidden(corpus.offsets[r]!, corpus.offsets[r + 1]!, f0, f1);
    for (let k = 0; k < K; k++) out[k] = headLogit(k, f1);
  };
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    // After a first epoch on every window, a long positive example's label stays on the window the
    // model now scores highest for that head (see PositiveWindows).
    if (silenced && epoch >= 1) choosePositiveWindows(groups, K, forwardLogits, (r, k) => given(r, k) === 1, silenced);
    shuffleInPlace(order, rand);
    for (const r of order) {
      const from = corpus.offsets[r]!, to = corpus.offsets[r + 1]!;
      let any = teacher !== undefined;
      for (let k = 0; k < K; k++) if (label(r, k) >= 0) any = true;
      if (!any) continue;
      const norm = hidden(from, to, h0, h1);
      for (let k = 0; k < K; k++) {
        const y = label(r, k);
        if (y < 0 && !learnsTeacher(k)) { dz[k] = 0; continue; }
        const p = 1 / (1 + Math.exp(-headLogit(k, h1)));
        // A head the row's source does not label learns the teacher's probability instead.
        dz[k] = y >= 0
          ? (p - y) * corpus.weight[r]! * (y === 1 ? posW[k]! : 1)
          : (p - teacher!.probs[r * K + k]! / 255) * corpus.weight[r]! * teacher!.weight;
      }
      dh1.fill(0);
      for (let k = 0; k < K; k++) {
        if (dz[k] === 0) continue;
        for (let m = 0; m < M; m++) {
          dh1[m]! += dz[k]! * w2[k * M + m]!;
          step(w2, gW2, k * M + m, dz[k]! * h1[m]!);
        }
        step(b2, gB2, k, dz[k]!);
      }
      dh0.fill(0);
      for (let m = 0; m < M; m++) {
        if (h1[m] === 0 || dh1[m] === 0) continue;
        for (let d = 0; d < D; d++) {
          dh0[d]! += dh1[m]! * w1[m * D + d]!;
          step(w1, gW1, m * D + d, dh1[m]! * h0[d]!);
        }
        step(b1, gB1, m, dh1[m]!);
      }
      if (!kernels?.adagradRows(corpus.feats, from, to, dh0, norm, lr)) {
        for (let i = from; i < to; i++) {
          const base = corpus.feats[i]! * D;
          for (let d = 0; d < D; d++) if (dh0[d] !== 0) step(emb, gEmb, base + d, dh0[d]! * norm);
        }
      }
    }
  }
  const { q, scale } = quantizeClipped(emb);
  return {
    family: "embedding-mlp",
    tensors: { emb: q, w1, b1, w2, b2 },
    params: { dim: D, hidden: M, embScale: scale },
    scorer: createMlpScorer({ buckets, heads: K, dim: D, hidden: M, emb: q, embScale: scale, w1, b1, w2, b2 }),
  };
}
