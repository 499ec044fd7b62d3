import { describe, expect, it } from "vitest";
import { windowsOf } from "../../src/classifiers/model/windows.js";

describe("windowsOf", () => {
  it("uses one window for short text", () => {
    expect(windowsOf("short text", { size: 480, stride: 240 })).toEqual([{ from: 0, to: 10 }]);
  });

  it("covers all of a long text with overlapping windows that start at word boundaries", () => {
    const text = Array.from({ length: 600 }, (_, i) => `w${i}`).join(" ");
    const ws = windowsOf(text, { size: 480, stride: 240 });
    expect(ws[0]!.from).toBe(0);
    expect(ws.at(-1)!.to).toBe(text.length);
    for (let i = 1; i < ws.length; i++) {
      expect(ws[i]!.from).toBeLessThan(ws[i - 1]!.to); // overlap, so no phrase falls between windows
      expect(ws[i]!.to - ws[i]!.from).toBeLessThanOrEqual(480);
      expect(text[ws[i]!.from]).toBe(" ");
    }
  });
});
