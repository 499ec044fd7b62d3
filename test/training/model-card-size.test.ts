import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Issue 16: the model card is a card, not a log (history lives in docs/model-history.md). The
// generator (report.ts) shortens what it includes from models/rule-ledger.md and languages.md to
// stay inside this; a longer card fails here rather than growing unnoticed.
describe("models/README.md", () => {
  it("stays within 15 KB", () => {
    expect(statSync(new URL("../../models/README.md", import.meta.url)).size).toBeLessThanOrEqual(15_000);
  });
});
