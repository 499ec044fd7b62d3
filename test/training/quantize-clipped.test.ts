import { describe, expect, it } from "vitest";
import { quantizeClipped } from "../../src/training/trainer.js";
import { createPrng } from "../../src/training/prng.js";

/** The plain form: every non-zero magnitude in a number[], sorted with a comparator. */
function reference(values: Float32Array, stride: number, lane: number, percentile: number): { q: Int8Array; scale: number } {
  const mags: number[] = [];
  for (let i = lane; i < values.length; i += stride) if (values[i] !== 0) mags.push(Math.abs(values[i]!));
  mags.sort((a, b) => a - b);
  const clip = mags.length > 0 ? mags[Math.min(mags.length - 1, Math.floor(mags.length * percentile))]! : 1;
  const scale = clip > 0 ? clip / 127 : 1;
  const q = new Int8Array(Math.ceil((values.length - lane) / stride));
  for (let i = lane, k = 0; i < values.length; i += stride, k++) q[k] = Math.max(-127, Math.min(127, Math.round(values[i]! / scale)));
  return { q, scale };
}

describe("quantizeClipped", () => {
  const rand = createPrng(11);
  // Heavy tails, exact zeros (skipped), negative zeros and repeated values, as trained tables have.
  const values = Float32Array.from({ length: 50_000 }, (_, i) => (i % 7 === 0 ? 0 : i % 11 === 0 ? -0 : i % 13 === 0 ? 0.25 : (rand() - 0.5) * (rand() < 0.01 ? 40 : 1)));

  it.each([[1, 0, 0.9999], [3, 1, 0.99], [10, 9, 0.5]])("gives the plain sort's clip and values (stride %i, lane %i, percentile %f)", (stride, lane, percentile) => {
    const got = quantizeClipped(values, stride, lane, percentile);
    const want = reference(values, stride, lane, percentile);
    expect(got.scale).toBe(want.scale);
    expect(Buffer.from(got.q.buffer).equals(Buffer.from(want.q.buffer))).toBe(true);
  });

  it("clips at the percentile: the few largest magnitudes saturate, the rest keep their resolution", () => {
    const { q, scale } = quantizeClipped(values);
    expect(q.filter((v) => Math.abs(v) === 127).length).toBeLessThan(50);
    expect(scale).toBeLessThan(20 / 127);
    expect(quantizeClipped(new Float32Array(4)).scale).toBe(1 / 127);
  });
});
