import { describe, expect, it } from "vitest";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { decorate, decorateRows } from "../../src/training/decorated-rows.js";
import { createPrng } from "../../src/training/prng.js";

const row = (dataset: string, text: string, spec: Parameters<typeof makeLabels>[0]): Example => ({ text, dataset, slice: "rows", labels: makeLabels(spec, "unknown") });

const examples: Example[] = [
  ...Array.from({ length: 200 }, (_, i) => row("abuse", `you are a worthless idiot number ${i}`, { harassment: 1 })),
  ...Array.from({ length: 200 }, (_, i) => row("queries", `what time does branch ${i} open on saturday`, { harassment: 0 })),
  ...Array.from({ length: 50 }, (_, i) => row("hatemoji", `an emoji row 🐒 ${i}`, { hate: 1 })),
  row("abuse", `${"a long rant ".repeat(40)}you idiot`, { harassment: 1 }),
];

describe("decorateRows (emoji and hashtags as people add them, labels unchanged)", () => {
  const options = { share: 0.3, seed: 11, calibrationShare: 0 };

  it("decorates about the share asked of each dataset's rows, keeping each row's labels and dataset, as training rows", () => {
    const out = decorateRows(examples, options);
    expect(out).toHaveLength(examples.length);
    const changed = out.filter((e, i) => e !== examples[i]);
    expect(changed.length).toBeGreaterThan(0.2 * 400);
    expect(changed.length).toBeLessThan(0.4 * 400);
    for (const e of changed) {
      const i = out.indexOf(e);
      const original = examples[i]!;
      expect(e.text).not.toBe(original.text);
      expect(e.text).toContain(original.text);
      expect(e.dataset).toBe(original.dataset);
      expect(Array.from(e.labels)).toEqual(Array.from(original.labels));
      expect(e.trainingOnly).toBe(true);
    }
    // Both the harassing and the benign rows are decorated, so a decoration teaches no label.
    expect(changed.some((e) => e.dataset === "abuse")).toBe(true);
    expect(changed.some((e) => e.dataset === "queries")).toBe(true);
    // The input is not mutated (the evaluated rows are the datasets' own).
    expect(examples.every((e) => !e.trainingOnly)).toBe(true);
  });

  it("leaves Hatemoji (whose emoji are its content), rows too long to stay one window, and calibration rows alone", () => {
    const out = decorateRows(examples, options);
    out.forEach((e, i) => {
      if (examples[i]!.dataset === "hatemoji" || examples[i]!.text.length > 440) expect(e).toBe(examples[i]);
    });
    const allCalibration = decorateRows(examples, { ...options, calibrationShare: 1 });
    allCalibration.forEach((e, i) => expect(e).toBe(examples[i]));
    decorateRows(examples, { ...options, share: 0 }).forEach((e, i) => expect(e).toBe(examples[i]));
  });

  it("is reproducible by its seed", () => {
    expect(decorateRows(examples, options).map((e) => e.text)).toEqual(decorateRows(examples, options).map((e) => e.text));
    expect(decorateRows(examples, options).map((e) => e.text)).not.toEqual(decorateRows(examples, { ...options, seed: 12 }).map((e) => e.text));
  });

  it("adds emoji before or after the text, or hashtags after it, never a group's or a weapon's emoji", () => {
    const rand = createPrng(3);
    const made = Array.from({ length: 400 }, () => decorate("plain text", rand));
    expect(made.every((t) => t.includes("plain text"))).toBe(true);
    expect(made.some((t) => t.startsWith("plain text") && /\p{Extended_Pictographic}$/u.test(t))).toBe(true);
    expect(made.some((t) => /^\p{Extended_Pictographic}/u.test(t))).toBe(true);
    expect(made.some((t) => / #\w+$/.test(t))).toBe(true);
    expect(made.join("")).not.toMatch(/[🐒🦍🐀🐖🔪💣🔫🤮🤢💩👳🧕🏳🌈✡☪]/u);
  });
});
