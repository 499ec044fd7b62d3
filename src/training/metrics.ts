/** Platt scaling, threshold choice and ranking metrics over (score, label, weight) triples. */
export interface Platt {
  a: number;
  b: number;
}

export function fitPlatt(x: ArrayLike<number>, y: ArrayLike<number>, w?: ArrayLike<number>): Platt {
  const n = x.length;
  let pos = 0;
  let neg = 0;
  let sw = 0, mean = 0;
  for (let i = 0; i < n; i++) {
    const wi = w?.[i] ?? 1;
    if (y[i] === 1) pos += wi;
    else neg += wi;
    sw += wi;
    mean += wi * x[i]!;
  }
  if (pos === 0 || neg === 0) return { a: 1, b: 0 };
  mean /= sw;
  let sd = 0;
  for (let i = 0; i < n; i++) sd += (w?.[i] ?? 1) * (x[i]! - mean) ** 2;
  sd = Math.sqrt(sd / sw) || 1;
  // Platt's smoothed targets keep the fit finite when classes separate perfectly.
  const tPos = (pos + 1) / (pos + 2);
  const tNeg = 1 / (neg + 2);
  // Fit on standardised logits with damped Newton steps (halved until the loss drops): plain
  // Newton from a = 1 diverges when raw logits are large and the sigmoid saturates.
  const z = Float64Array.from({ length: n }, (_, i) => (x[i]! - mean) / sd);
  const loss = (a: number, b: number): number => {
    let l = 0;
    for (let i = 0; i < n; i++) {
      const t = y[i] === 1 ? tPos : tNeg;
      const u = a * z[i]! + b;
      // log(1 + e^u) - t * u, computed stably.
      l += (w?.[i] ?? 1) * ((u > 0 ? u + Math.log1p(Math.exp(-u)) : Math.log1p(Math.exp(u))) - t * u);
    }
    return l;
  };
  let a = 1;
  let b = Math.log(pos / neg);
  let current = loss(a, b);
  for (let it = 0; it < 100; it++) {
    let ga = 0, gb = 0, haa = 1e-9, hab = 0, hbb = 1e-9;
    for (let i = 0; i < n; i++) {
      const wi = w?.[i] ?? 1;
      const p = 1 / (1 + Math.exp(-(a * z[i]! + b)));
      const t = y[i] === 1 ? tPos : tNeg;
      const d = (p - t) * wi;
      const s = p * (1 - p) * wi;
      ga += d * z[i]!;
      gb += d;
      haa += s * z[i]! * z[i]!;
      hab += s * z[i]!;
      hbb += s;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-18) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let step = 1;
    let next = loss(a - da, b - db);
    while (next > current && step > 1e-6) {
      step /= 2;
      next = loss(a - step * da, b - step * db);
    }
    if (next > current) break;
    a -= step * da;
    b -= step * db;
    const done = current - next < 1e-10 * Math.max(1, Math.abs(current));
    current = next;
    if (done) break;
  }
  // Back to raw logits; a negative slope would invert the ranking: fall back to identity.
  const A = a / sd;
  const B = b - (a * mean) / sd;
  return A > 0 && Number.isFinite(A) && Number.isFinite(B) ? { a: A, b: B } : { a: 1, b: 0 };
}

export interface PrPoint {
  threshold: number;
  precision: number;
  recall: number;
  f1: number;
}

/** The threshold with the best weighted F1 (ties: the higher threshold, i.e. fewer flags). */
export function chooseThreshold(s: ArrayLike<number>, y: ArrayLike<number>, w?: ArrayLike<number>, min = 0.2, flatWithin = 0): PrPoint {
  const idx = Array.from({ length: s.length }, (_, i) => i).sort((i, j) => s[j]! - s[i]!);
  let totalPos = 0;
  for (let i = 0; i < s.length; i++) if (y[i] === 1) totalPos += w?.[i] ?? 1;
  let tp = 0, fp = 0;
  let best: PrPoint = { threshold: 0.5, precision: 0, recall: 0, f1: 0 };
  // Every candidate, from the highest threshold down, for the flat-top choice below.
  const points: PrPoint[] = [];
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
    const point = { threshold: s[i]!, precision, recall, f1 };
    points.push(point);
    if (f1 > best.f1) best = point;
  }
  // Where F1 is flat near its top, the highest bar within `flatWithin` of the best: the exact argmax
  // is noise there (one seed chose 0.41, another 0.27 for the same head), and the stricter bar flags
  // less ordinary text the calibration split does not hold.
  if (flatWithin > 0) return points.find((p) => p.f1 >= best.f1 - flatWithin) ?? best;
  return best;
}

/**
 * Average precision (area under the step precision-recall curve). NaN without positives. Tied scores
 * form one step (precision at the end of the tie), so a model that gives every row the same score
 * gets the base rate, not a perfect score from a lucky tie order.
 */
export function averagePrecision(s: ArrayLike<number>, y: ArrayLike<number>): number {
  const idx = Array.from({ length: s.length }, (_, i) => i).sort((i, j) => s[j]! - s[i]!);
  let pos = 0;
  for (let i = 0; i < s.length; i++) if (y[i] === 1) pos++;
  if (pos === 0) return NaN;
  let tp = 0;
  let seen = 0;
  let ap = 0;
  for (let k = 0; k < idx.length; ) {
    let groupPos = 0;
    let j = k;
    while (j < idx.length && s[idx[j]!] === s[idx[k]!]) {
      if (y[idx[j]!] === 1) groupPos++;
      j++;
    }
    tp += groupPos;
    seen += j - k;
    ap += (groupPos * tp) / seen;
    k = j;
  }
  return ap / pos;
}
