/**
 * What the transformer family would cost in the service's own runtime: a plain-TypeScript forward
 * pass of the encoder (training/transformer/common.py Encoder: pre-LN, GELU, mean pooling) over a
 * 1,000-character item's windows, timed against the default path (the committed model's full
 * classify) on the same texts, alternating rounds, one thread. Weights are random (the cost does not
 * depend on their values); the shape is the trained one unless flags say otherwise.
 *
 *   npx tsx src/training/transformer-bench.ts [--d 64 --layers 2 --ff 128 --heads 4 --rounds 7]
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { loadTrainedClassifier } from "../classifiers/engine/index.js";
import { tokenize } from "../classifiers/model/features.js";
import { windowsOf } from "../classifiers/model/windows.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { createPrng } from "./prng.js";
import { WINDOW } from "./settings.js";

const { values } = parseArgs({
  options: {
    d: { type: "string", default: "64" }, layers: { type: "string", default: "2" }, ff: { type: "string", default: "128" },
    heads: { type: "string", default: "4" }, vocab: { type: "string", default: "10051" }, rounds: { type: "string", default: "7" },
  },
});
const D = Number(values.d), L = Number(values.layers), FF = Number(values.ff), NH = Number(values.heads), V = Number(values.vocab);
const OUT = 10, MAX_LEN = 128;
const rand = createPrng(7);
const rnd = (n: number): Float32Array => Float32Array.from({ length: n }, () => (rand() - 0.5) * 0.1);
const ones = (n: number): Float32Array => new Float32Array(n).fill(1);
const layers = Array.from({ length: L }, () => ({
  ln1g: ones(D), ln1b: rnd(D), wqkv: rnd(3 * D * D), bqkv: rnd(3 * D), wo: rnd(D * D), bo: rnd(D),
  ln2g: ones(D), ln2b: rnd(D), w1: rnd(FF * D), b1: rnd(FF), w2: rnd(D * FF), b2: rnd(D),
}));
const tok = rnd(V * D), pos = rnd(MAX_LEN * D), lnfg = ones(D), lnfb = rnd(D), wh = rnd(OUT * D), bh = rnd(OUT);

function layerNorm(x: Float32Array, T: number, g: Float32Array, b: Float32Array, out: Float32Array): void {
  for (let t = 0; t < T; t++) {
    let m = 0, v = 0;
    for (let i = 0; i < D; i++) m += x[t * D + i]!;
    m /= D;
    for (let i = 0; i < D; i++) v += (x[t * D + i]! - m) ** 2;
    const s = 1 / Math.sqrt(v / D + 1e-5);
    for (let i = 0; i < D; i++) out[t * D + i] = (x[t * D + i]! - m) * s * g[i]! + b[i]!;
  }
}
/** out[t, o] = b[o] + sum_i w[o, i] x[t, i] (PyTorch Linear layout). */
function linear(x: Float32Array, T: number, n: number, w: Float32Array, b: Float32Array, m: number, out: Float32Array): void {
  for (let t = 0; t < T; t++) {
    for (let o = 0; o < m; o++) {
      let s = b[o]!;
      const wo = o * n, xo = t * n;
      for (let i = 0; i < n; i++) s += w[wo + i]! * x[xo + i]!;
      out[t * m + o] = s;
    }
  }
}
const gelu = (x: number): number => 0.5 * x * (1 + Math.tanh(0.7978845608 * (x + 0.044715 * x * x * x)));

/** Logits of one window's token ids ([CLS] first). */
function forward(ids: Int32Array, out: Float64Array): void {
  const T = ids.length, dh = D / NH;
  const x = new Float32Array(T * D), h = new Float32Array(T * D), qkv = new Float32Array(T * 3 * D), att = new Float32Array(T * D);
  const f = new Float32Array(T * FF), y = new Float32Array(T * D), sc = new Float32Array(T);
  for (let t = 0; t < T; t++) for (let i = 0; i < D; i++) x[t * D + i] = tok[ids[t]! * D + i]! + pos[t * D + i]!;
  for (const l of layers) {
    layerNorm(x, T, l.ln1g, l.ln1b, h);
    linear(h, T, D, l.wqkv, l.bqkv, 3 * D, qkv);
    for (let hd = 0; hd < NH; hd++) {
      for (let q = 0; q < T; q++) {
        let mx = -Infinity;
        for (let k = 0; k < T; k++) {
          let s = 0;
          for (let i = 0; i < dh; i++) s += qkv[q * 3 * D + hd * dh + i]! * qkv[k * 3 * D + D + hd * dh + i]!;
          sc[k] = s / Math.sqrt(dh);
          if (sc[k]! > mx) mx = sc[k]!;
        }
        let z = 0;
        for (let k = 0; k < T; k++) z += sc[k] = Math.exp(sc[k]! - mx);
        for (let i = 0; i < dh; i++) {
          let s = 0;
          for (let k = 0; k < T; k++) s += sc[k]! * qkv[k * 3 * D + 2 * D + hd * dh + i]!;
          att[q * D + hd * dh + i] = s / z;
        }
      }
    }
    linear(att, T, D, l.wo, l.bo, D, y);
    for (let i = 0; i < T * D; i++) x[i]! += y[i]!;
    layerNorm(x, T, l.ln2g, l.ln2b, h);
    linear(h, T, D, l.w1, l.b1, FF, f);
    for (let i = 0; i < T * FF; i++) f[i] = gelu(f[i]!);
    linear(f, T, FF, l.w2, l.b2, D, y);
    for (let i = 0; i < T * D; i++) x[i]! += y[i]!;
  }
  layerNorm(x, T, lnfg, lnfb, h);
  const pooled = new Float32Array(D);
  for (let t = 0; t < T; t++) for (let i = 0; i < D; i++) pooled[i]! += h[t * D + i]! / T;
  for (let o = 0; o < OUT; o++) {
    let s = bh[o]!;
    for (let i = 0; i < D; i++) s += wh[o * D + i]! * pooled[i]!;
    out[o] = s;
  }
}

/** The item as the service would feed it: normalised, 480/240 windows, engine tokens, hashed ids. */
function scoreItem(text: string, out: Float64Array): void {
  const norm = normalizeForMatching(text);
  for (const w of windowsOf(norm, WINDOW)) {
    const toks = tokenize(norm, w.from, w.to).slice(0, MAX_LEN - 1);
    const ids = new Int32Array(toks.length + 1);
    ids[0] = 1;
    toks.forEach((t, i) => { ids[i + 1] = 3 + ((t.start * 31 + t.end) % (V - 3)); });
    forward(ids, out);
  }
}

const WORDS = "the council met on tuesday to review budget library wing members discussed opening hours cost of shelving proposal extend reading room you are stupid idiot we will hurt them blood".split(" ");
const texts = Array.from({ length: 20 }, (_, k) => {
  let s = k + 1, t = "";
  while (t.length < 1000) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    t += `${WORDS[s % WORDS.length]}${s % 11 === 0 ? ". " : " "}`;
  }
  return t.slice(0, 1000);
});
const classifier = loadTrainedClassifier();
const out = new Float64Array(OUT);
const time = (fn: (t: string) => void): number => {
  const t0 = performance.now();
  for (const t of texts) fn(t);
  return (performance.now() - t0) / texts.length;
};
for (let i = 0; i < 3; i++) { time((t) => classifier.classify(t)); time((t) => scoreItem(t, out)); }
const def: number[] = [], tr: number[] = [];
for (let r = 0; r < Number(values.rounds); r++) {
  def.push(time((t) => classifier.classify(t)));
  tr.push(time((t) => scoreItem(t, out)));
}
const median = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const windows = windowsOf(normalizeForMatching(texts[0]!), WINDOW).length;
console.log(JSON.stringify({
  shape: { d: D, layers: L, ff: FF, heads: NH, vocab: V }, windowsPerItem: windows,
  defaultPathMsPer1000Chars: Number(median(def).toFixed(3)), transformerMsPer1000Chars: Number(median(tr).toFixed(3)), ratio: Number((median(tr) / median(def)).toFixed(1)),
  rounds: def.length, load: loadavg().map((v) => Number(v.toFixed(2))), runtime: `node ${process.version}, plain TypeScript, one thread`,
}, null, 1));
