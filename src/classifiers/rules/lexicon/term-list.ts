/**
 * Transparent vocabulary lists. They back up the learned model where public training text is thin
 * (explicit sexual prose, graphic violence, minors, self-harm methods). Weight 1 = unambiguous on its
 * own; lower weights = common words that only count when they pile up. Entries are matched as whole
 * normalised words or phrases (see lexicon.ts), so obfuscated spellings match too. A trailing "*"
 * matches any word starting with the stem.
 */
export interface TermList {
  readonly name: string;
  readonly terms: Readonly<Record<string, number>>;
}
