import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createEngine, HALVES, reported } from "../../src/classifiers/engine/engine.js";
import { DEFAULT_MODEL_PATH, decodeModel } from "../../src/classifiers/model/model-file.js";
import type { Verdict } from "../../src/classifiers/classifier.js";

// Written for this test: a first-person statement inside a long post of ordinary prose.
const PROSE = "We drove up to the lake on Saturday and the weather was better than the forecast said. " +
  "My brother brought his new dog, who spent the whole afternoon chasing sticks into the water. ";
const STATEMENT = "Last night I went deeper than usual with the razor and honestly I did not care if the bleeding stopped. ";
const POST = PROSE.repeat(3) + STATEMENT + PROSE.repeat(3);

describe("the self-harm heads' half-window reading", () => {
  const model = decodeModel(readFileSync(DEFAULT_MODEL_PATH));
  const engine = createEngine(model);
  const whole = createEngine(model, { disabled: new Set([HALVES]) });
  const read = (e: typeof engine, text: string) => e.classify(text) as Verdict;

  it("raises the score of a statement a long post's windows averaged away, never its flag", () => {
    const withHalves = read(engine, POST);
    const without = read(whole, POST);
    // The head is weak on such statements (read alone 0.08 with `2026-11-m`, 0.035 with `2026-12-c`):
    // the whole windows gave 0.006 and 0.004, the halves 0.028 and 0.010.
    expect(withHalves.categories.self_harm!.score).toBeGreaterThan(without.categories.self_harm!.score * 2);
    for (const [id, verdict] of Object.entries(without.categories)) expect(withHalves.categories[id as keyof Verdict["categories"]]!.flagged, id).toBe(verdict!.flagged);
    // A raised score stays under the bar where the whole windows did not flag: over it, a policy
    // threshold under the bar read it as held back by a frame.
    const bars = model.header.thresholds;
    for (const id of ["self_harm", "self_harm_intent"] as const) {
      const verdict = read(engine, PROSE.repeat(2) + "I keep thinking about swallowing every pill in the cabinet so I never have to wake up. " + PROSE);
      if (!verdict.categories[id]!.flagged) expect(verdict.categories[id]!.score, id).toBeLessThan(bars[id]!);
    }
    // Other heads read whole windows only.
    expect(withHalves.categories.hate).toEqual(without.categories.hate);
  });

  it("raises an unflagged score to just under the bar at most (a policy reads a score over it as held back)", () => {
    expect(reported(0.1, 0.6, false, 0.3)).toBeLessThan(0.3);
    expect(reported(0.1, 0.6, false, 0.3)).toBeGreaterThan(0.299);
    expect(reported(0.1, 0.2, false, 0.3)).toBe(0.2);
    // A flagged score takes the half's whole; a lower half changes nothing.
    expect(reported(0.5, 0.9, true, 0.3)).toBe(0.9);
    expect(reported(0.5, 0.2, true, 0.3)).toBe(0.5);
    // Already over the bar unflagged (a frame held it back): not lowered.
    expect(reported(0.8, 0.9, false, 0.3)).toBe(0.8);
  });

  it("leaves a text of one half window alone", () => {
    expect(read(engine, STATEMENT).categories).toEqual(read(whole, STATEMENT).categories);
  });
});
