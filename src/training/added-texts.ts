import type { Example } from "./datasets/example.js";

/** Texts seen per dataset: how often each, and the labels of the first row it came from. */
export type TextCounts = Map<string, Map<string, { n: number; labels: Int8Array }>>;

/** Counts `text` for `dataset`, keeping the first row's labels. */
export function countText(counts: TextCounts, dataset: string, text: string, labels: Int8Array): void {
  let byText = counts.get(dataset);
  if (!byText) counts.set(dataset, (byText = new Map()));
  const seen = byText.get(text);
  if (seen) seen.n++;
  else byText.set(text, { n: 1, labels });
}

/**
 * The probes' added texts (short-token-negatives.ts, identity-mention-negatives.ts): per dataset,
 * the `perDataset` most frequent (ties by text), as rows of that dataset, so a fold holds them out
 * with it, under `slice`, never evaluated.
 */
export function mostFrequentPerDataset(counts: TextCounts, perDataset: number, slice: string): Example[] {
  const out: Example[] = [];
  for (const [dataset, byText] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    const top = [...byText].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).slice(0, perDataset);
    for (const [text, { labels }] of top) out.push({ text, dataset, slice, labels: Int8Array.from(labels) });
  }
  return out;
}
