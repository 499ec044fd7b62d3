import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { applyPolicy, compilePolicy, DEFAULT_COMPILED_POLICY, flagsAt, MAX_LIST_SPANS, withoutAllowedTerms } from "../../src/policies/apply-policy.js";
import { validatePolicyRules, type Policy } from "../../src/policies/policy.js";
import { ApiError } from "../../src/errors/api-error.js";

const policy = (draft: unknown): Policy => ({ id: "pol_test", version: 1, ...validatePolicyRules(draft) });

/** A model's verdict: violence flagged on "kill", sexual scored below its bar, harassment on "noob". */
const verdict: Verdict = {
  categories: {
    violence: { score: 0.8, flagged: true },
    sexual: { score: 0.3, flagged: false },
    harassment: { score: 0.6, flagged: true },
    hate: { score: 0.1, flagged: false },
  },
  explanations: {
    violence: [{ start: 0, end: 4, text: "kill", weight: 0.9 }],
    harassment: [{ start: 9, end: 13, text: "noob", weight: 0.7 }],
  },
};
const text = "kill the noob";

function codeOf(draft: unknown): string {
  try {
    validatePolicyRules(draft);
  } catch (error) {
    return (error as ApiError).code;
  }
  return "accepted";
}

describe("applyPolicy", () => {
  it("the default policy leaves the verdict as it is", () => {
    expect(applyPolicy(verdict, text, DEFAULT_COMPILED_POLICY)).toBe(verdict);
  });

  it("thresholds change flags, never scores; off keeps the score", () => {
    const out = applyPolicy(verdict, text, compilePolicy(policy({ thresholds: { sexual: 0.2, violence: "off", hate: 0.5 } })));
    expect(out.categories.sexual).toEqual({ score: 0.3, flagged: true });
    expect(out.categories.violence).toEqual({ score: 0.8, flagged: false });
    expect(out.categories.hate).toEqual({ score: 0.1, flagged: false });
    expect(out.categories.harassment).toEqual({ score: 0.6, flagged: true });
    for (const [id, entry] of Object.entries(verdict.categories)) expect(out.categories[id as keyof typeof out.categories]!.score).toBe(entry.score);
  });

  it("allow-list terms do not count as evidence alone, and suppress only their own terms", () => {
    const out = applyPolicy(verdict, text, compilePolicy(policy({ allowList: ["n00b"] })));
    expect(out.categories.harassment).toEqual({ score: 0.6, flagged: false });
    expect(out.categories.violence).toEqual({ score: 0.8, flagged: true });
    // With evidence outside the allowed term, the category stays flagged.
    const twoSpans: Verdict = { ...verdict, explanations: { ...verdict.explanations, harassment: [...verdict.explanations.harassment!, { start: 0, end: 4, text: "kill", weight: 0.5 }] } };
    expect(applyPolicy(twoSpans, text, compilePolicy(policy({ allowList: ["noob"] }))).categories.harassment!.flagged).toBe(true);
  });

  it("block-list hits flag their category or custom, with the matched spans, obfuscated or not", () => {
    const compiled = compilePolicy(policy({ blockList: [{ term: "camper", category: "harassment" }, { term: "ez clap", category: "custom" }] }));
    const input = "you C4MPER, 3z cl4p";
    const quiet: Verdict = { categories: { harassment: { score: 0.05, flagged: false } }, explanations: {} };
    const out = applyPolicy(quiet, input, compiled);
    expect(out.categories.harassment).toEqual({ score: 0.05, flagged: true });
    expect(out.explanations.harassment).toEqual([{ start: 4, end: 10, text: "C4MPER", weight: 1 }]);
    expect(out.custom).toEqual([{ start: 12, end: 19, text: "3z cl4p", weight: 1 }]);
    expect(applyPolicy(quiet, "campers campfire", compiled)).toEqual({ categories: quiet.categories, explanations: {} });
  });

  it("a block-list hit in a category the model did not evaluate reads the list's score, 1, never 0", () => {
    // Text in a language the model does not cover: no category was judged.
    const unread: Verdict = { categories: {}, explanations: {}, language: "fr", notEvaluated: { reason: "unsupported_language", language: "fr" } };
    const out = applyPolicy(unread, "Je vais te tuer ce soir", compilePolicy(policy({ blockList: [{ term: "tuer", category: "violence" }] })));
    expect(out.categories).toEqual({ violence: { score: 1, flagged: true } });
    expect(out.explanations.violence).toEqual([{ start: 11, end: 15, text: "tuer", weight: 1 }]);
    expect(out.notEvaluated).toEqual(unread.notEvaluated);
  });

  it("lists a word the model and the block list both found once", () => {
    const explained: Verdict = { categories: { violence: { score: 0.9, flagged: true } }, explanations: { violence: [{ start: 2, end: 6, text: "hurt", weight: 0.8 }] } };
    const out = applyPolicy(explained, "I hurt", compilePolicy(policy({ blockList: [{ term: "hurt", category: "violence" }] })));
    expect(out.explanations.violence).toEqual([{ start: 2, end: 6, text: "hurt", weight: 1 }]);
  });

  it("keeps what the verdict says besides categories (language, not evaluated)", () => {
    const withLanguage: Verdict = { ...verdict, language: "fr", notEvaluated: { reason: "partly_unsupported_language", language: "fr" } };
    const out = applyPolicy(withLanguage, text, compilePolicy(policy({ thresholds: { hate: 0 } })));
    expect(out.language).toBe("fr");
    expect(out.notEvaluated).toEqual(withLanguage.notEvaluated);
  });

  it("block-list spans come before the model's in a category it already explained", () => {
    const out = applyPolicy(verdict, text, compilePolicy(policy({ blockList: [{ term: "the", category: "violence" }] })));
    expect(out.explanations.violence!.map((s) => s.text)).toEqual(["the", "kill"]);
  });
});

describe("validatePolicyRules", () => {
  it("refuses bad drafts with stable codes", () => {
    expect(codeOf({ thresholds: { gore: 0.5 } })).toBe("policy_unknown_category");
    expect(codeOf({ blockList: [{ term: "x1", category: "gore" }] })).toBe("policy_unknown_category");
    // The unknown name is echoed cut short, as terms are (a 200 KB category made a 405 KB error page).
    for (const draft of [{ blockList: [{ term: "x1", category: "g".repeat(200_000) }] }, { thresholds: { ["g".repeat(200_000)]: 0.5 } }]) {
      const message = (() => { try { validatePolicyRules(draft); } catch (error) { return (error as ApiError).message; } return ""; })();
      expect(message.length).toBeLessThan(300);
    }
    for (const term of ["bad\u0000word", "\u202Edrow", "tab\there"]) expect(codeOf({ blockList: [{ term, category: "custom" }] }), JSON.stringify(term)).toBe("policy_term_invalid");
    expect(codeOf({ blockList: [{ term: "👩‍💻 spam", category: "custom" }] })).toBe("accepted"); // a joiner is part of an emoji
    expect(codeOf({ thresholds: { hate: 1.5 } })).toBe("policy_invalid_threshold");
    expect(codeOf({ thresholds: { hate: -0.1 } })).toBe("policy_invalid_threshold");
    expect(codeOf({ thresholds: { hate: "0.5" } })).toBe("policy_invalid_threshold");
    expect(codeOf({ blockList: Array.from({ length: 10_001 }, (_, i) => ({ term: `t${i}` })) })).toBe("policy_list_too_large");
    expect(codeOf({ allowList: Array.from({ length: 1_001 }, (_, i) => `t${i}`) })).toBe("policy_list_too_large");
    expect(codeOf({ allowList: ["a".repeat(101)] })).toBe("policy_term_invalid");
    expect(codeOf({ allowList: ["  .. "] })).toBe("policy_term_invalid");
    expect(codeOf({ blockList: [{ term: "gg" }], allowList: ["GG"] })).toBe("policy_term_invalid");
    expect(codeOf("nope")).toBe("invalid_policy");
    expect(codeOf({ allowList: [3] })).toBe("invalid_policy");
    // A term is one line (the dashboard shows one per line), and its normalised form is bounded:
    // 80 of "⒀" are 320 units to match ("(13)" each). (One character folds to at most four, so
    // 96 of U+FDFA, once 1,728 letters, stand for themselves.)
    expect(codeOf({ blockList: [{ term: "foo\nbar" }] })).toBe("policy_term_invalid");
    expect(codeOf({ allowList: ["⒀".repeat(80)] })).toBe("policy_term_invalid");
    // A Korean syllable is two or three letters once normalised: a full-length term fits (67 of
    // them were refused at twice the character limit).
    expect(codeOf({ allowList: ["각".repeat(100)] })).toBe("accepted");
    expect(codeOf({ allowList: ["\uFDFA".repeat(96)] })).toBe("accepted");
    expect(codeOf({ allowList: ["\uFB00".repeat(100)] })).toBe("accepted"); // ligature ff: 200 letters
  });

  it("refuses a misspelt field and a list given in both spellings; takes a stored policy's own fields", () => {
    expect(codeOf({ blocklist: [{ term: "camper" }] })).toBe("invalid_policy");
    expect(codeOf({ block_list: [{ term: "camper" }], blockList: [] })).toBe("invalid_policy");
    expect(codeOf({ id: "pol_1", version: 3, thresholds: { hate: 0.4 }, blockList: [], allowList: [] })).toBe("accepted");
  });

  it("stores a threshold of -0 as 0 (JSON cannot tell them apart)", () => {
    expect(Object.is(validatePolicyRules({ thresholds: { hate: -0 } }).thresholds.hate, 0)).toBe(true);
  });

  it("accepts the edges: 0, 1, off, 10,000 terms of 100 characters, custom by default", () => {
    const rules = validatePolicyRules({ thresholds: { hate: 0, sexual: 1, violence: "off" }, blockList: [{ term: ` ${"b".repeat(100)} ` }] });
    expect(rules).toEqual({ thresholds: { hate: 0, sexual: 1, violence: "off" }, blockList: [{ term: "b".repeat(100), category: "custom" }], allowList: [] });
    expect(codeOf({ blockList: Array.from({ length: 10_000 }, (_, i) => ({ term: `t${i}`, category: "hate" })) })).toBe("accepted");
  });
});

describe("a policy threshold in place of the model's bar (flagsAt)", () => {
  const bar = 0.57;
  // As the engine answers: a head over its bar; one held back over it (a negated claim); a rule's
  // flag under it; a plain score under it.
  const entries = {
    head: { score: 0.8, flagged: true },
    heldBack: { score: 0.95, flagged: false },
    rule: { score: 0.26, flagged: true },
    plain: { score: 0.4, flagged: false },
  };
  const grid = Array.from({ length: 101 }, (_, i) => i / 100);

  it("at the bar itself changes nothing", () => {
    for (const entry of Object.values(entries)) expect(flagsAt(bar, entry, bar)).toBe(entry.flagged);
  });

  it("a looser threshold never adds a flag, a stricter one never removes one", () => {
    for (const entry of Object.values(entries)) {
      const flags = grid.map((t) => flagsAt(t, entry, bar));
      for (let i = 1; i < flags.length; i++) if (flags[i]) expect(flags[i - 1]).toBe(true);
    }
  });

  it("keeps a held-back score unflagged and a rule's flag while no looser than the bar", () => {
    expect(flagsAt(0.9, entries.heldBack, bar)).toBe(false);
    expect(flagsAt(0.1, entries.heldBack, bar)).toBe(false);
    expect(flagsAt(0.5, entries.rule, bar)).toBe(true);
    expect(flagsAt(0.6, entries.rule, bar)).toBe(false);
    expect(flagsAt(0.3, entries.plain, bar)).toBe(true);
    expect(flagsAt(0.9, entries.head, bar)).toBe(false);
  });

  it("without a bar (images), by the score alone", () => {
    expect(flagsAt(0.9, entries.heldBack, undefined)).toBe(true);
    expect(flagsAt(0.5, entries.rule, undefined)).toBe(false);
  });
});

// Found by an audit: every hit of every term became a span, so 10,000 copies of "the" against a
// text of "the the ..." made 25 million hits and ran the service out of memory, and nested
// phrases ("ab", "ab ab", ...) against "ab ab ..." answered 214 MB.
describe("block-list hits a text can make", () => {
  const empty: Verdict = { categories: { violence: { score: 0.1, flagged: false }, hate: { score: 0.1, flagged: false } }, explanations: {} };

  it("copies of one term (also written with invisible characters) give one span per place, at most MAX_LIST_SPANS", () => {
    const copies = [...Array.from({ length: 5_000 }, () => ({ term: "the", category: "violence" })),
      ...Array.from({ length: 90 }, (_, i) => ({ term: `t${String.fromCodePoint(0xe0020 + i)}he`, category: "violence" }))];
    const compiled = compilePolicy(policy({ block_list: copies }));
    const input = "the ".repeat(2_500);
    const hits = compiled.matcher.find(input);
    expect(hits).toHaveLength(MAX_LIST_SPANS);
    expect(hits.map((h) => h.start)).toEqual(Array.from({ length: MAX_LIST_SPANS }, (_, i) => i * 4));
    const out = applyPolicy(empty, input, compiled);
    expect(out.categories.violence).toEqual({ score: 0.1, flagged: true });
    expect(out.explanations.violence).toHaveLength(MAX_LIST_SPANS);
  });

  it("nested phrases show the longest ending at each place, per category, and custom is capped alike", () => {
    const nested = Array.from({ length: 33 }, (_, i) => Array.from({ length: i + 1 }, () => "ab").join(" "));
    const compiled = compilePolicy(policy({ block_list: [...nested.map((term) => ({ term, category: "hate" })), { term: "ab" }] }));
    const input = "ab ".repeat(3_000);
    const out = applyPolicy(empty, input, compiled);
    expect(out.explanations.hate!.map((s) => s.text)).toEqual(nested.slice(0, MAX_LIST_SPANS));
    expect(out.custom).toHaveLength(MAX_LIST_SPANS);
    expect(out.custom!.every((s) => s.text === "ab")).toBe(true);
  });

  it("allowed terms are every one found, so all of them are blanked out", () => {
    const compiled = compilePolicy(policy({ allow_list: ["ab", "ab ab"], block_list: [{ term: "kill", category: "violence" }] }));
    const input = `${"ab ".repeat(50)}kill`;
    const allowed = compiled.matcher.find(input).filter((h) => h.term >= compiled.blockCount);
    // One per place (the longest ending there): "ab" at the first, "ab ab" at every other.
    expect(allowed).toHaveLength(50);
    expect(withoutAllowedTerms(input, compiled.matcher.find(input), compiled)).toBe(`${" ".repeat(150)}kill`);
  });
});
