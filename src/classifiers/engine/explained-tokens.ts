import type { Token } from "../model/features.js";
import type { WindowEvidence } from "./window-evidence.js";

/** Tokens [tFrom, tTo) of the text, by index. */
export interface TokenRange {
  tFrom: number;
  tTo: number;
}

/**
 * The tokens a window's explanation may point at: those starting inside it (WindowEvidence's
 * range) and a token the window starts inside of. A window bound with no space to snap to cuts a
 * token, and the window's features read that token's tail (the cut case in engine.ts evaluate),
 * so the token drove its score. Left out, a window lying wholly inside one token ("I will " then
 * "stupid" 80 times, past the 480-unit window) flagged a category with no span at all (audit
 * F3). Scores are not read from this range, only explanations.
 */
export function explainedTokens(w: WindowEvidence, tokens: readonly Token[]): TokenRange {
  const startsInsideOne = w.tFrom > 0 && tokens[w.tFrom - 1]!.end > w.window.from;
  return { tFrom: startsInsideOne ? w.tFrom - 1 : w.tFrom, tTo: w.tTo };
}
