import type { Example } from "./datasets/example.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const SHORT_TOKEN_SLICE = "short-token";

/**
 * Probe (session 30, off by default): the short words of rows no source calls harmful, each as a
 * text of its own, with its row's labels. The embedding bag averages a text's feature rows, so a
 * one-letter text is its few rows alone ("u" harassment 0.53, "n" hate 0.67, "b" violence 0.57
 * with `2026-11-m`), and the corpus holds almost no short benign texts to learn that from.
 * Tokens of at most `maxLength` letters or digits, at most `perDataset` distinct ones per dataset
 * (the most frequent first), kept in their row's dataset so a fold holds them out with it.
 */
export function shortTokenNegatives(examples: readonly Example[], options: { perDataset: number; maxLength: number }): Example[] {
  const counts = new Map<string, Map<string, { n: number; labels: Int8Array }>>();
  for (const e of examples) {
    if (e.labels.some((l) => l === 1) || !e.labels.some((l) => l === 0)) continue;
    const byToken = counts.get(e.dataset) ?? new Map<string, { n: number; labels: Int8Array }>();
    counts.set(e.dataset, byToken);
    for (const raw of e.text.split(/\s+/)) {
      const token = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      if (token.length === 0 || token.length > options.maxLength || !/^[\p{L}\p{N}]+$/u.test(token)) continue;
      const seen = byToken.get(token);
      if (seen) seen.n++;
      else byToken.set(token, { n: 1, labels: e.labels });
    }
  }
  const out: Example[] = [];
  for (const [dataset, byToken] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    const top = [...byToken].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).slice(0, options.perDataset);
    for (const [token, { labels }] of top) out.push({ text: token, dataset, slice: SHORT_TOKEN_SLICE, labels: Int8Array.from(labels) });
  }
  return out;
}
