import type { CategoryId } from "../../../classifiers/categories.js";
import type { CategoryVerdict } from "../../../classifiers/classifier.js";
import { malformed, unreadableVerdict } from "../http-json.js";
import { quoteSafely } from "../../quote-safely.js";
import type { GuardFamily } from "./guard-family.js";

/**
 * Llama Guard 3 and 4's hazard codes (MLCommons taxonomy) and which of our categories each is.
 * Codes without a counterpart (crimes, defamation, advice, privacy, IP, weapons, elections,
 * code abuse, and S3 sex-related crimes, which is about crimes, not explicit content) are read
 * but judge nothing of ours. docs/providers.md has the table.
 */
const LLAMA_GUARD_CODES: Record<string, CategoryId | undefined> = {
  S1: "violence", // Violent Crimes
  S2: undefined, // Non-Violent Crimes
  S3: undefined, // Sex-Related Crimes
  S4: "sexual_minors", // Child Sexual Exploitation
  S5: undefined, // Defamation
  S6: undefined, // Specialized Advice
  S7: undefined, // Privacy
  S8: undefined, // Intellectual Property
  S9: undefined, // Indiscriminate Weapons
  S10: "hate", // Hate
  S11: "self_harm", // Suicide & Self-Harm
  S12: "sexual", // Sexual Content
  S13: undefined, // Elections
  S14: undefined, // Code Interpreter Abuse
};

const JUDGES = [...new Set(Object.values(LLAMA_GUARD_CODES).filter((c): c is CategoryId => c !== undefined))];

/**
 * Llama Guard served by vLLM, Ollama or TGI behind chat completions: the server's chat template
 * builds Llama Guard's prompt (its category list and instructions) around the user turn, so the
 * text goes as the user message, unaltered. The answer is "safe", or "unsafe" and a line of
 * comma-separated codes. It gives no probability: a category is scored 1 when its code is listed,
 * 0 when it is not.
 */
export const llamaGuard: GuardFamily = {
  kind: "llama-guard",
  judges: JUDGES,
  endpoint: "chat/completions",
  // All fourteen codes ("unsafe\nS1,S2,...,S14") take about 45 tokens.
  requests: (text) => [{ messages: [{ role: "user", content: text }], temperature: 0, max_tokens: 64 }],
  verdict([answer]) {
    // A cut-off list would read its last code short ("S1" of "S10") and the codes after it as "not listed".
    if (answer!.finishReason === "length") throw malformed("the Llama Guard answer was cut off (finish_reason length)");
    const lines = answer!.content.trim().split(/\s*\n\s*/);
    const head = lines[0]?.toLowerCase();
    if (head !== "safe" && head !== "unsafe") throw unreadableVerdict(`a Llama Guard answer starts with "safe" or "unsafe", not ${quoteSafely(lines[0] ?? "")}`);
    // "safe" is the whole answer, "unsafe" and its codes two lines: an answer that goes on
    // ("safe\nS1", "safe\n\nunsafe\nS1") contradicts itself, and its first word is no verdict.
    if (lines.length > (head === "safe" ? 1 : 2)) throw unreadableVerdict(`a "${head}" Llama Guard answer goes on past its verdict (${lines.length} lines)`);
    const listed = new Set<string>();
    if (head === "unsafe") {
      const codes = (lines[1] ?? "").split(/\s*,\s*/).filter((code) => code !== "");
      if (codes.length === 0) throw unreadableVerdict('an "unsafe" Llama Guard answer names no category');
      for (const code of codes) {
        const normalised = code.toUpperCase();
        if (!(normalised in LLAMA_GUARD_CODES)) throw unreadableVerdict(`unknown Llama Guard category ${quoteSafely(code)}`);
        listed.add(normalised);
      }
    }
    const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
    for (const category of JUDGES) categories[category] = { score: 0, flagged: false };
    for (const code of listed) {
      const category = LLAMA_GUARD_CODES[code];
      if (category) categories[category] = { score: 1, flagged: true };
    }
    return { categories, explanations: {} };
  },
};
