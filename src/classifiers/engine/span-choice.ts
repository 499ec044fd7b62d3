import type { Token } from "../model/features.js";
import { NORMALIZED_IDENTITY_WORDS } from "../model/identity-words.js";
import { normalizeForMatching } from "../normalize/normalize.js";
import { FUNCTION_WORDS } from "./function-words.js";

// Which words explain a flagged category: the engine weighs each token (explain in engine.ts), this
// file decides which of them a caller is shown. Tests: test/classifiers/explanation-spans.test.ts.

/** The most spans one category is explained by. */
export const MAX_SPANS = 3;
/**
 * A span must carry at least this share of the strongest span's weight. Below it sit words the
 * head leans on weakly everywhere ("lol", "like", "hope", a URL's "aspx"): they pointed at nothing
 * a reader would call the harm (CAD and Hatemoji rows, docs/model-history.md session 12).
 */
const SPAN_MIN_SHARE = 0.35;

/**
 * What a token is to an explanation:
 * - "word": a content word, the spans' first choice;
 * - "group": a word naming a protected group (model/identity-words.ts). The heads learned the shared
 *   placeholder those words hash to as hate evidence, so it led "I hate black people." where the
 *   harm is "hate" (HateCheck: 320 of 3,207 hate explanations named only the group, audit of
 *   session 53). So do emoji of people (with a skin tone or not), the flags built on the white
 *   flag (🏳️‍🌈, 🏳️‍⚧️), ♿ and signs of faith ("I hate 👩");
 * - "pictograph": any other emoji;
 * - "filler": a function word, a token of no letter or digit that is no emoji, or the noun after a
 *   group's name ("black people": "people" names nobody by itself).
 */
export type TokenKind = "word" | "group" | "pictograph" | "filler";

const GROUP_NOUNS: ReadonlySet<string> = new Set(["people", "person", "persons", "folk", "folks", "man", "men", "guy", "guys"].map((w) => normalizeForMatching(w)));
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** People (👦-👩, 🧑, 👪-👭, 👱-👶, 🧔, 🧕), a skin tone, 🏳, ♿, ✡ ☦ ☪ ✝ ☸ 🕉 🕎. */
const GROUP_PICTOGRAPH = /[\u{1F466}-\u{1F469}\u{1F9D1}\u{1F46A}-\u{1F46D}\u{1F471}-\u{1F476}\u{1F9D4}\u{1F9D5}\u{1F3FB}-\u{1F3FF}\u{1F3F3}\u{267F}\u{2721}\u{2626}\u{262A}\u{271D}\u{2638}\u{1F549}\u{1F54E}]/u;

/** Each token's kind in [tFrom, tTo), read from the normalised text (a hashtag's word is its word). */
export function tokenKinds(text: string, tokens: readonly Token[], tFrom: number, tTo: number): TokenKind[] {
  const kinds: TokenKind[] = [];
  let afterGroup = false;
  for (let t = tFrom; t < tTo; t++) {
    const tok = tokens[t]!;
    const word = text.charCodeAt(tok.start) === 35 && tok.end - tok.start > 1 ? text.slice(tok.start + 1, tok.end) : text.slice(tok.start, tok.end);
    const kind = kindOf(word, afterGroup);
    kinds.push(kind);
    afterGroup = kind === "group";
  }
  return kinds;
}

function kindOf(word: string, afterGroup: boolean): TokenKind {
  if (NORMALIZED_IDENTITY_WORDS.has(word)) return "group";
  if (FUNCTION_WORDS.has(word) || (afterGroup && GROUP_NOUNS.has(word))) return "filler";
  if (LETTER_OR_DIGIT.test(word)) return "word";
  if (!PICTOGRAPH.test(word)) return "filler";
  return GROUP_PICTOGRAPH.test(word) ? "group" : "pictograph";
}

/**
 * The tokens (window indexes) that explain a category, from their weights, kinds, whether each
 * lies in the flagging rule's phrase (`ruled`) and whether it is a function word inside one,
 * between its content words (`inPhrase`). May lower an in-phrase function word's weight.
 *
 * Spans point at the words that carry the meaning, not function words the head leans on ("you",
 * "and", "her"); only a text of nothing else is explained by them. Among content words:
 * - the rule's phrase's strongest content word leads, whatever its share of the strongest weight:
 *   the phrase is why the category flags, and "I will kill you, you idiot" was explained by
 *   "idiot" alone (harassment, and the threat too: 34 of 72 threat-and-insult sentences);
 * - a group's name shows inside the rule's phrase ("Jews are vermin"), else only where no other
 *   content word has weight;
 * - an emoji counts where no rule's phrase explains the flag and it outweighs every content word:
 *   it is the harm's own sign ("I want to 🔪 all women" had been explained by "women"). Else it is
 *   filler: the head learned some from Hatemoji's hateful rows, and "🎉🎉🎉" outranked "die" in a
 *   birthday wish turned threat.
 */
export function chooseSpans(weights: Float64Array, kinds: readonly TokenKind[], ruled: Uint8Array, inPhrase: Uint8Array): number[] {
  let strongestWord = 0;
  let lead = -1;
  for (let k = 0; k < weights.length; k++) {
    if (kinds[k] !== "word" || !(weights[k]! > 0)) continue;
    strongestWord = Math.max(strongestWord, weights[k]!);
    if (ruled[k] && (lead < 0 || weights[k]! > weights[lead]!)) lead = k;
  }
  const words: number[] = [];
  const groups: number[] = [];
  const inPhraseFillers: number[] = [];
  const fillers: number[] = [];
  for (let k = 0; k < weights.length; k++) {
    if (!(weights[k]! > 0)) continue;
    const kind = kinds[k]!;
    if (kind === "word" || (kind === "group" && ruled[k]) || (kind === "pictograph" && lead < 0 && weights[k]! >= strongestWord)) words.push(k);
    else if (kind === "group") groups.push(k);
    else (inPhrase[k] ? inPhraseFillers : fillers).push(k);
  }
  const byWeight = (x: number, y: number): number => weights[y]! - weights[x]! || x - y;
  const content = (words.length > 0 ? words : groups).sort((x, y) => Number(y === lead) - Number(x === lead) || byWeight(x, y));
  // A function word inside a phrase shows only beside a single content word, and never outweighs
  // it: "you" in "I hope you die" (2.17 against 1.00 for "die") and "your" in "show me your tits"
  // had led their spans (audit, session 40).
  if (content.length === 1) for (const k of inPhraseFillers) weights[k] = Math.min(weights[k]!, weights[content[0]!]!);
  const top = content.length > 1 ? content : content.length + inPhraseFillers.length > 0 ? [...content, ...inPhraseFillers.sort(byWeight)] : fillers.sort(byWeight);
  const bar = Math.max(...top.map((k) => weights[k]!)) * SPAN_MIN_SHARE;
  return top.filter((k) => k === lead || weights[k]! >= bar).slice(0, MAX_SPANS);
}
