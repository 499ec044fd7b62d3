import { describe, expect, it } from "vitest";
import { lowerBound } from "../../src/classifiers/lower-bound.js";

describe("lowerBound", () => {
  it("finds the first index where the predicate turns false, at the ends too", () => {
    const starts = [2, 5, 5, 9, 14];
    expect(lowerBound(starts.length, (i) => starts[i]! < 5)).toBe(1);
    expect(lowerBound(starts.length, (i) => starts[i]! < 6)).toBe(3);
    expect(lowerBound(starts.length, (i) => starts[i]! < 0)).toBe(0);
    expect(lowerBound(starts.length, (i) => starts[i]! < 100)).toBe(5);
    expect(lowerBound(0, () => true)).toBe(0);
  });

  it("agrees with a linear search on every cut of a sorted list", () => {
    const values = Array.from({ length: 200 }, (_, i) => Math.floor(i / 3));
    for (let cut = -1; cut <= 70; cut++) {
      expect(lowerBound(values.length, (i) => values[i]! < cut)).toBe(values.findIndex((v) => v >= cut) === -1 ? values.length : values.findIndex((v) => v >= cut));
    }
  });
});
