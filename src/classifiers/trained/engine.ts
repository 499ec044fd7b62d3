import { CATEGORY_IDS, type CategoryId } from "../categories.js";
import type { CategoryVerdict, EvidenceSpan, TextClassifier, Verdict } from "../classifier.js";
import { evidenceScore, getLexicons, strongestHit, type LexiconHit } from "../lexicon/index.js";
import { normalizeText, type NormalizedText } from "../normalize/normalize.js";
import { featurize, tokenize, tokenFeatures, type Token } from "./features.js";
import type { ModelFile } from "./model-file.js";
import { createLinearScorer, createMlpScorer, type Scorer } from "./scorers.js";
import { windowsOf, type Window } from "./windows.js";

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const MAX_SPANS = 3;

export function scorerOf(model: ModelFile): Scorer {
  const { header, tensors } = model;
  const t = (name: string): Int8Array | Float32Array => {
    const v = tensors.get(name);
    if (!v) throw new Error(`model file lacks tensor ${name}`);
    return v;
  };
  const heads = header.heads.length;
  const buckets = header.hashing.buckets;
  if (header.family === "linear") {
    return createLinearScorer({ buckets, heads, w: t("w") as Int8Array, scale: t("scale") as Float32Array, bias: t("bias") as Float32Array });
  }
  const p = header.params;
  return createMlpScorer({
    buckets, heads, dim: p["dim"] ?? 0, hidden: p["hidden"] ?? 0, emb: t("emb") as Int8Array, embScale: p["embScale"] ?? 1,
    w1: t("w1") as Float32Array, b1: t("b1") as Float32Array, w2: t("w2") as Float32Array, b2: t("b2") as Float32Array,
  });
}

/** Per-window evidence, kept so the winning window of each category can be explained. */
interface WindowEvidence {
  window: Window;
  features: Uint32Array;
  /** Calibrated model score per category with a head. */
  model: Partial<Record<CategoryId, number>>;
  sexualLex: number;
  graphicLex: number;
  minors: number;
  methods: number;
}

interface Candidate {
  score: number;
  flagged: boolean;
  at: number;
  /** Which evidence to explain: the learned head, lexicon hits, or both. */
  lexicons: ("sexual" | "graphicViolence" | "minors" | "selfHarmMethods")[];
  /** The learned head whose features explain this category, if any. */
  head: CategoryId | undefined;
}

/** Tokens starting inside a window (tokens are sorted by start). */
function countInside(tokens: readonly Token[], w: Window): number {
  const lower = (x: number): number => {
    let lo = 0, hi = tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tokens[mid]!.start < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return lower(w.to) - lower(w.from);
}

export function createEngine(model: ModelFile): TextClassifier {
  const { header } = model;
  const scorer = scorerOf(model);
  const lex = getLexicons();
  const headIndex = new Map<CategoryId, number>(header.heads.map((c, i) => [c, i]));
  const threshold = (c: CategoryId): number => header.thresholds[c] ?? 0.5;

  function evaluate(norm: NormalizedText): { windows: WindowEvidence[]; tokens: Token[]; hits: Record<string, LexiconHit[]> } {
    const tokens = tokenize(norm.text);
    const words = tokens.map((t) => norm.text.slice(t.start, t.end));
    const hits = {
      sexual: lex.sexual.scan(norm.text, tokens, words),
      graphicViolence: lex.graphicViolence.scan(norm.text, tokens, words),
      minors: lex.minors.scan(norm.text, tokens, words),
      selfHarmMethods: lex.selfHarmMethods.scan(norm.text, tokens, words),
    };
    const logits = new Float64Array(scorer.heads);
    const windows = windowsOf(norm.text, header.window).map((window): WindowEvidence => {
      const inside = (h: LexiconHit): boolean => h.start >= window.from && h.start < window.to;
      const count = countInside(tokens, window);
      const features = featurize(norm.text, header.hashing, window.from, window.to);
      scorer.logits(features, logits);
      const scores: Partial<Record<CategoryId, number>> = {};
      header.heads.forEach((c, i) => {
        const p = header.calibration[c] ?? { a: 1, b: 0 };
        scores[c] = sigmoid(p.a * logits[i]! + p.b);
      });
      const pick = (list: LexiconHit[]): LexiconHit[] => (list.length === 0 ? list : list.filter(inside));
      return {
        window, features, model: scores,
        sexualLex: evidenceScore(pick(hits.sexual), count),
        graphicLex: evidenceScore(pick(hits.graphicViolence), count),
        minors: strongestHit(pick(hits.minors)),
        methods: strongestHit(pick(hits.selfHarmMethods)),
      };
    });
    return { windows, tokens, hits };
  }

  function decide(windows: WindowEvidence[]): Partial<Record<CategoryId, Candidate>> {
    const out: Partial<Record<CategoryId, Candidate>> = {};
    const consider = (c: CategoryId, score: number, flagged: boolean, at: number, head: CategoryId | undefined, lexicons: Candidate["lexicons"]): void => {
      const cur = out[c];
      // Flagging evidence beats non-flagging; then the higher score wins.
      if (!cur || (flagged && !cur.flagged) || (flagged === cur.flagged && score > cur.score)) out[c] = { score, flagged, at, head, lexicons };
    };
    windows.forEach((w, at) => {
      for (const c of header.heads) {
        const s = w.model[c]!;
        consider(c, s, s >= threshold(c), at, c, []);
      }
      // Lexicon evidence backs up the thin classes; it can raise a score, never lower one.
      consider("sexual", w.sexualLex, w.sexualLex >= header.lexicon.sexual, at, undefined, ["sexual"]);
      consider("violence_graphic", w.graphicLex, w.graphicLex >= header.lexicon.graphicViolence, at, undefined, ["graphicViolence"]);
      consider("violence", w.graphicLex, w.graphicLex >= header.lexicon.graphicViolence, at, undefined, ["graphicViolence"]);
      // sexual_minors has no honest training data: sexual evidence AND a minor indicator in the same window.
      const sexual = Math.max(w.model.sexual ?? 0, w.sexualLex);
      const sm = Math.min(sexual, w.minors);
      consider("sexual_minors", sm, w.minors > 0 && sexual >= threshold("sexual_minors"), at, "sexual", ["minors", "sexual"]);
      // Thin instructions data: a self-harm window that also asks for or gives a method counts.
      const sh = w.model.self_harm ?? 0;
      const inst = Math.min(sh, w.methods);
      consider("self_harm_instructions", inst, w.methods >= 0.6 && sh >= threshold("self_harm") && inst >= threshold("self_harm_instructions"), at, "self_harm", ["selfHarmMethods"]);
    });
    return out;
  }

  function explain(c: CategoryId, cand: Candidate, ev: { windows: WindowEvidence[]; tokens: Token[]; hits: Record<string, LexiconHit[]> }, norm: NormalizedText, original: string[]): EvidenceSpan[] {
    const w = ev.windows[cand.at]!;
    const inWindow = ev.tokens.filter((t) => t.start >= w.window.from && t.start < w.window.to);
    const weights = new Map<Token, number>();
    const hi = cand.head !== undefined ? headIndex.get(cand.head) : undefined;
    if (hi !== undefined) {
      for (const t of inWindow) {
        const subset: number[] = [];
        tokenFeatures(norm.text, t, header.hashing, (b) => subset.push(b));
        const a = scorer.attribution(w.features, subset, hi);
        if (a > 0) weights.set(t, a);
      }
    }
    for (const name of cand.lexicons) {
      for (const h of ev.hits[name] ?? []) {
        if (h.start < w.window.from || h.start >= w.window.to) continue;
        for (const t of inWindow) if (t.start >= h.start && t.end <= h.end) weights.set(t, (weights.get(t) ?? 0) + h.weight);
      }
    }
    const top = [...weights.entries()].sort((x, y) => y[1] - x[1] || x[0].start - y[0].start).slice(0, MAX_SPANS);
    const spans = top.map(([t, weight]) => {
      const start = norm.start[t.start] ?? 0;
      const end = norm.end[t.end - 1] ?? start;
      return { start, end, text: original.slice(start, end).join(""), weight: Math.round(weight * 1000) / 1000 };
    });
    return spans.sort((a, b) => a.start - b.start);
  }

  return {
    id: header.id,
    classify(text: string): Verdict {
      const norm = normalizeText(text);
      const ev = evaluate(norm);
      const decided = decide(ev.windows);
      const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
      const explanations: Partial<Record<CategoryId, EvidenceSpan[]>> = {};
      let original: string[] | undefined;
      for (const c of CATEGORY_IDS) {
        const cand = decided[c];
        if (!cand) continue;
        categories[c] = { score: Math.round(cand.score * 1e6) / 1e6, flagged: cand.flagged };
        if (cand.flagged) {
          original ??= Array.from(text);
          explanations[c] = explain(c, cand, ev, norm, original);
        }
      }
      return { categories, explanations };
    },
  };
}
