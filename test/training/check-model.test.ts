import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { EVERYDAY_MESSAGES, PLAIN_HARM } from "../../src/training/acceptance-sentences.js";

// npm run check:model on the shipped model: the same verdicts as the everyday-sentences test, with
// margins. Run as a script, as a developer runs it before shipping a retrain.
describe("npm run check:model", () => {
  it("passes the shipped model and names each sentence list's closest calls", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "src/training/check-model.ts", "--closest", "2"], { encoding: "utf8" });
    expect(out).toContain(`everyday messages (must not be flagged): ${EVERYDAY_MESSAGES.length}/${EVERYDAY_MESSAGES.length} pass`);
    expect(out).toContain(`plain harm (must be flagged): ${PLAIN_HARM.length}/${PLAIN_HARM.length} pass`);
    expect(out).not.toContain("FAIL");
    // Two closest passes per list, each with its score, bar and margin.
    expect(out.match(/^ {2}pass \S+ +score \d\.\d{3} bar \d\.\d{3} margin [+-]\d\.\d{3}/gm)?.length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
