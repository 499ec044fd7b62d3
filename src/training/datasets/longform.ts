import { readdirSync } from "node:fs";
import { join } from "node:path";
import { evidenceScore, getLexicons, scanText } from "../../classifiers/rules/lexicon/index.js";
import { normalizeForMatching } from "../../classifiers/normalize/normalize.js";
import { BENIGN, example, makeLabels, type Example, type LabelSpec } from "./example.js";
import { readText } from "./files.js";

/** Target chunk length: about one inference window (see trained/windows.ts). */
const CHUNK_CHARS = 480;
// Chunks kept per benign book/bundle, so the 15 MB of group A does not drown everything else.
const MAX_BENIGN_PER_FILE = 350;
const MAX_POSITIVE_PER_FILE = 300;

// Passages the dataset notes flag as involving people under 18 (line ranges, 1-based, inclusive):
// kept out of the adult sexual class.
const MINOR_FLAGS: Record<string, [number, number][]> = {
  "lady-chatterleys-lover.txt": [[39, 45], [2808, 2808], [4400, 4400]],
  "venus-in-furs.txt": [[1545, 1581]],
};

interface Chunk { text: string; firstLine: number; lastLine: number }

/** Paragraphs (blank-line separated, hard wraps undone) packed into chunks of about CHUNK_CHARS. */
export function chunkProse(source: string, maxChars = CHUNK_CHARS): Chunk[] {
  const lines = source.split(/\r?\n/);
  let startAt = 0;
  let endAt = lines.length;
  lines.forEach((l, i) => {
    if (/^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG/i.test(l)) startAt = i + 1;
    if (/^\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG/i.test(l)) endAt = Math.min(endAt, i);
  });
  const paragraphs: Chunk[] = [];
  let cur: string[] = [];
  let first = startAt;
  const flush = (last: number): void => {
    const text = cur.join(" ").replace(/\s+/g, " ").trim();
    if (text.length >= 80) paragraphs.push({ text, firstLine: first + 1, lastLine: last + 1 });
    cur = [];
  };
  for (let i = startAt; i < endAt; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.startsWith("##### ARTICLE")) {
      if (cur.length > 0) flush(i - 1);
      first = i + 1;
      continue;
    }
    if (cur.length === 0) first = i;
    cur.push(line.trim());
  }
  if (cur.length > 0) flush(endAt - 1);
  const out: Chunk[] = [];
  let acc: Chunk | undefined;
  for (const p of paragraphs) {
    for (const piece of splitLong(p.text, maxChars)) {
      const part = { text: piece, firstLine: p.firstLine, lastLine: p.lastLine };
      if (acc && acc.text.length + piece.length + 1 <= maxChars) {
        acc = { text: `${acc.text} ${piece}`, firstLine: acc.firstLine, lastLine: part.lastLine };
      } else {
        if (acc) out.push(acc);
        acc = part;
      }
    }
  }
  if (acc) out.push(acc);
  return out;
}

function splitLong(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const sentences = text.match(/[^.!?]+[.!?]+["'”’)]*\s*|[^.!?]+$/g) ?? [text];
  const out: string[] = [];
  let cur = "";
  for (const s of sentences) {
    if (cur.length + s.length > maxChars && cur.length > 0) {
      out.push(cur.trim());
      cur = "";
    }
    cur += s;
    while (cur.length > maxChars * 1.5) {
      out.push(cur.slice(0, maxChars).trim());
      cur = cur.slice(maxChars);
    }
  }
  if (cur.trim().length > 0) out.push(cur.trim());
  return out;
}

function everyNth<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}

function overlaps(c: Chunk, ranges: [number, number][] | undefined): boolean {
  return (ranges ?? []).some(([a, b]) => c.firstLine <= b && c.lastLine >= a);
}

/**
 * Long-form prose. Labels are per book upstream, so chunks are labelled here:
 * A (benign) chunks are negatives (with exceptions in LABEL-MAPPING.md); B and C chunks become
 * positives only when the lexicon finds dense explicit / graphic vocabulary (weak supervision);
 * other B/C chunks say nothing and are dropped.
 */
/**
 * Lexicon evidence (lexicons' evidenceScore) a B or C chunk needs to become a sexual or violence
 * positive. At 0.2 the lexicon's densest chunks were chosen (Foxe's martyrs 201 of 565 violent
 * ones; the novels of war 10 or fewer each), and violent narration of other words taught nothing.
 */
export const DEFAULT_PROSE_EVIDENCE_BAR = 0.2;

export function readLongform(root: string, evidenceBar = DEFAULT_PROSE_EVIDENCE_BAR): Example[] {
  const lex = getLexicons();
  const out: Example[] = [];
  for (const group of ["A", "B", "C"]) {
    const dir = join(root, "longform-prose", group);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".txt")).sort()) {
      const chunks = chunkProse(readText(dir, file));
      const slice = `${group}/${file.replace(".txt", "")}`;
      if (group === "A") {
        const spec: LabelSpec | undefined =
          file === "sane-sex-life.txt" ? { hate: 0, harassment: 0, self_harm: 0, violence: 0 } :
          file === "wikipedia-crime.txt" ? { hate: 0, harassment: 0, self_harm: 0, sexual: 0, violence_graphic: 0 } : undefined;
        for (const c of everyNth(chunks, MAX_BENIGN_PER_FILE)) out.push(example("longform-prose", slice, c.text, spec ? makeLabels(spec, "unknown") : BENIGN));
        continue;
      }
      const positives: Example[] = [];
      for (const c of chunks) {
        const norm = normalizeForMatching(c.text);
        if (group === "B") {
          if (overlaps(c, MINOR_FLAGS[file])) continue;
          const { hits, tokens } = scanText(lex.sexual, norm);
          if (evidenceScore(hits, tokens) >= evidenceBar) positives.push(example("longform-prose", slice, c.text, makeLabels({ sexual: 1, hate: 0, self_harm: 0, harassment: 0, violence: 0 }, "unknown")));
        } else {
          const { hits, tokens } = scanText(lex.graphicViolence, norm);
          const score = evidenceScore(hits, tokens);
          if (score >= 0.35) positives.push(example("longform-prose", slice, c.text, makeLabels({ violence_graphic: 1, self_harm: 0, harassment: 0 }, "unknown")));
          else if (score >= evidenceBar) positives.push(example("longform-prose", slice, c.text, makeLabels({ violence: 1, self_harm: 0, harassment: 0 }, "unknown")));
        }
      }
      out.push(...everyNth(positives, MAX_POSITIVE_PER_FILE));
    }
  }
  return out;
}
