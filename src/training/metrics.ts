/** Platt scaling, threshold choice and ranking metrics over (score, label, weight) triples. */
export interface Platt {
  a: number;
  b: number;
}

export function fitPlatt(x: ArrayLike<number>, y: ArrayLike<number>, w?: ArrayLike<number>): Platt {
  const n = x.length;
  let pos = 0;
  let neg = 0;
  for (let i = 0; i < n; i++) (y[i] === 1 ? (pos += w?.[i] ?? 1) : (neg += w?.[i] ?? 1));
  if (pos === 0 || neg === 0) return { a: 1, b: 0 };
  // Platt's smoothed targets keep the fit finite when classes separate perfectly.
  const tPos = (pos + 1) / (pos + 2);
  const tNeg = 1 / (neg + 2);
  let a = 1;
  let b = 0;
  for (let it = 0; it < 50; it++) {
    let ga = 0, gb = 0, haa = 1e-6, hab = 0, hbb = 1e-6;
    for (let i = 0; i < n; i++) {
      const wi = w?.[i] ?? 1;
      const p = 1 / (1 + Math.exp(-(a * x[i]! + b)));
      const t = y[i] === 1 ? tPos : tNeg;
      const d = (p - t) * wi;
      const s = p * (1 - p) * wi;
      ga += d * x[i]!;
      gb += d;
      haa += s * x[i]! * x[i]!;
      hab += s * x[i]!;
      hbb += s;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) < 1e-7 && Math.abs(db) < 1e-7) break;
  }
  // A negative slope would invert the ranking; fall back to identity rather than flip it.
  return a > 0 ? { a, b } : { a: 1, b: 0 };
}

export interface PrPoint {
  threshold: number;
  precision: number;
  recall: number;
  f1: number;
}

/** The threshold with the best weighted F1 (ties: the higher threshold, i.e. fewer flags). */
export function chooseThreshold(s: ArrayLike<number>, y: ArrayLike<number>, w?: ArrayLike<number>, min = 0.2): PrPoint {
  const idx = Array.from({ length: s.length }, (_, i) => i).sort((i, j) => s[j]! - s[i]!);
  let totalPos = 0;
  for (let i = 0; i < s.length; i++) if (y[i] === 1) totalPos += w?.[i] ?? 1;
  let tp = 0, fp = 0;
  let best: PrPoint = { threshold: 0.5, precision: 0, recall: 0, f1: 0 };
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    if (y[i] === 1) tp += w?.[i] ?? 1;
    else fp += w?.[i] ?? 1;
    const next = idx[k + 1];
    if (next !== undefined && s[next] === s[i]) continue;
    if (s[i]! < min) break;
    const precision = tp / Math.max(1e-12, tp + fp);
    const recall = tp / Math.max(1e-12, totalPos);
    const f1 = (2 * precision * recall) / Math.max(1e-12, precision + recall);
    if (f1 > best.f1) best = { threshold: s[i]!, precision, recall, f1 };
  }
  return best;
}

/** Average precision (area under the step precision-recall curve). NaN without positives. */
export function averagePrecision(s: ArrayLike<number>, y: ArrayLike<number>): number {
  const idx = Array.from({ length: s.length }, (_, i) => i).sort((i, j) => s[j]! - s[i]! || y[j]! - y[i]!);
  let pos = 0;
  for (let i = 0; i < s.length; i++) if (y[i] === 1) pos++;
  if (pos === 0) return NaN;
  let tp = 0;
  let ap = 0;
  idx.forEach((i, k) => {
    if (y[i] === 1) {
      tp++;
      ap += tp / (k + 1);
    }
  });
  return ap / pos;
}

export function precisionRecallAt(s: ArrayLike<number>, y: ArrayLike<number>, threshold: number): { precision: number; recall: number; flagged: number } {
  let tp = 0, fp = 0, pos = 0;
  for (let i = 0; i < s.length; i++) {
    if (y[i] === 1) pos++;
    if (s[i]! >= threshold) y[i] === 1 ? tp++ : fp++;
  }
  return { precision: tp + fp > 0 ? tp / (tp + fp) : NaN, recall: pos > 0 ? tp / pos : NaN, flagged: tp + fp };
}
