import { describe, expect, it } from "vitest";
import type { Account } from "../../src/accounts/account-store.js";
import { policyPage, type TryResult } from "../../src/dashboard/pages/policy-page.js";

const page = (tried: TryResult) =>
  policyPage({
    account: { id: "acct_1", email: "a@example.com" } as Account,
    csrf: "token",
    form: { thresholds: {}, block: "", allow: "", text: "" },
    version: undefined,
    changes: [],
    defaults: {},
    tried,
  });
const headingOf = (html: string) => /<h2[^>]*>Under this draft: ([^<]*)<\/h2>/.exec(html)?.[1];

// Found by a review (session 51): every reason but unsupported_language read as "partly not
// evaluated", and a wholly foreign text flagged by a block-list term as partly read.
describe("Try draft's verdict", () => {
  it("says what the model did and did not read, for each reason", () => {
    const flagged = { categories: { custom: { score: 1, flagged: true } }, flagged: true };
    expect(headingOf(page({ categories: {}, flagged: false, notEvaluated: { reason: "unsupported_language", language: "fr" } }))).toBe("not evaluated (the model does not cover language fr)");
    expect(headingOf(page({ ...flagged, notEvaluated: { reason: "unsupported_language", language: "fr" } }))).toBe("flagged; the rest not evaluated (the model does not cover language fr)");
    expect(headingOf(page({ ...flagged, notEvaluated: { reason: "partly_unsupported_language", language: "de" } }))).toBe("flagged; partly not evaluated (language de not covered)");
    expect(headingOf(page({ categories: {}, flagged: false, notEvaluated: { reason: "no_text", language: "und" } }))).toBe("not evaluated (no_text)");
    expect(headingOf(page({ categories: {}, flagged: false }))).toBe("not flagged");
  });
});
