/**
 * The words of each corpus row and of each held-out window, as the engine tokenises them, for the
 * families trained outside TypeScript (training/transformer/): transformer-export.ts writes them as
 * JSONL, transformer-pack.ts as vocabulary ids.
 */
import { tokenize } from "../classifiers/model/features.js";
import { windowsOf } from "../classifiers/model/windows.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { type Corpus, distinctTexts } from "./corpus.js";
import type { Example } from "./datasets/example.js";

/** The first `max` words of norm[from, to). */
export function wordsOf(norm: string, from: number, to: number, max: number): string[] {
  return tokenize(norm, from, to).slice(0, max).map((t) => norm.slice(t.start, t.end));
}

/**
 * Each corpus row's words: buildCorpus's own walk (distinctTexts, non-overlapping windows), checked
 * against the corpus's example index row by row.
 */
export function corpusRowWords(examples: readonly Example[], corpus: Corpus, windowSize: number, max: number): string[][] {
  const rows: string[][] = [];
  for (const { index, norm } of distinctTexts(examples)) {
    for (const w of windowsOf(norm, { size: windowSize, stride: windowSize })) {
      if (corpus.example[rows.length] !== index) throw new Error(`row ${rows.length}: corpus walk differs`);
      rows.push(wordsOf(norm, w.from, w.to, max));
    }
  }
  if (rows.length !== corpus.rows) throw new Error(`rows: ${rows.length} vs ${corpus.rows}`);
  return rows;
}

/**
 * A held-out dataset as heldOutLogits scores it: each distinct text once, its overlapping windows'
 * words (none for an empty text), and its labels.
 */
export function heldOutTexts(examples: readonly Example[], dataset: string, window: { size: number; stride: number }, max: number): { windows: string[][]; labels: number[] }[] {
  const seen = new Set<string>();
  const held: { windows: string[][]; labels: number[] }[] = [];
  for (const e of examples) {
    if (e.dataset !== dataset || seen.has(e.text)) continue;
    seen.add(e.text);
    const norm = normalizeForMatching(e.text);
    held.push({ windows: windowsOf(norm, window).map((w) => wordsOf(norm, w.from, w.to, max)), labels: Array.from(e.labels) });
  }
  return held;
}
