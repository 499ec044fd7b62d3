import type { Verdict } from "../classifiers/classifier.js";
import { combinedTextOf, readCombined, type CombinedText } from "./combined-reading.js";

/** A text item of a call: its index in the request, and its text. */
export interface TextItem {
  index: number;
  text: string;
}

/** The embedded model's reading of a call's text items. */
export interface TextReadings {
  /** Each text item's verdict, by request index. */
  verdicts: ReadonlyMap<number, Promise<Verdict>>;
  /**
   * The combined text (the items with text to read, joined: combinedTextOf) and the embedded
   * model's reading of it (readCombined); undefined when fewer than two items have text to read,
   * or the items are not to be judged together.
   */
  combined: Promise<{ text: CombinedText; verdict: Verdict } | undefined>;
}

/**
 * The embedded model's steps of a Moderate call's text items, in one place for both paths that
 * answer one: moderate() on the event loop (which then adds a policy and a guard model's second
 * opinion) and a compute worker's whole answer (workers/compute-worker-main.ts), so the two
 * cannot drift. Each text is read once, for its item and for the combined layer, which is read
 * once every item's reading says whether it has text to read. `together`: false for separate
 * inputs (separate-inputs.ts). Await `combined` whenever the verdicts are awaited: it fails with them.
 */
export function readTexts(texts: readonly TextItem[], classify: (text: string) => Verdict | Promise<Verdict>, together = true): TextReadings {
  const verdicts = new Map(texts.map((t) => [t.index, (async () => classify(t.text))()]));
  const combined = together && texts.length >= 2 ? readTogether(texts, verdicts, classify) : Promise.resolve(undefined);
  return { verdicts, combined };
}

async function readTogether(texts: readonly TextItem[], verdicts: TextReadings["verdicts"], classify: (text: string) => Verdict | Promise<Verdict>) {
  const readings = await Promise.all(texts.map(async (t) => ({ index: t.index, text: t.text, notEvaluated: (await verdicts.get(t.index)!).notEvaluated })));
  const text = combinedTextOf(readings);
  return text && { text, verdict: await readCombined(text, classify) };
}
