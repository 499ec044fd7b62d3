import { codePointSlicer } from "../../base/code-points.js";
import { CATEGORY_IDS, type CategoryId } from "../categories.js";
import { isExplained, type CategoryVerdict, type ClassifyOptions, type EvidenceSpan, type TextClassifier, type Verdict } from "../classifier.js";
import { higherPerCategory } from "../higher-reading.js";
import { aboutImagery, aimedAtReader, combinePhrases, declaredSelfHarm, precededDirectlyBy, notCounting, notFoldedLookalike, declaredThreats, dropHyperbole, dropNegated, followedBy, notAboutWriter, notNounSense, notOfGroup, notOfThing, notReflexiveIdiom, evidenceScore, getLexicons, groupClaims, notCutsOf, notInGame, outside, strongestHit, type LexiconHit } from "../rules/lexicon/index.js";
import { mayUseInvisibleSpaces, normalizeText, type NormalizedText, type NormalizeOptions } from "../normalize/normalize.js";
import { featuresOfTokens, featurize, firstTokenAtOrAfter, tokenFeaturesOf, tokenize, type Token, type TokenFeatures } from "../model/features.js";
import type { ModelFile } from "../model/model-file.js";
import { newFloat64Array } from "../model/typed-slab.js";
import { memberHeadWeightsOf, memberName } from "../model/ensemble-scorer.js";
import { createMlpEnsembleScorer } from "../model/mlp-ensemble-scorer.js";
import { createLinearScorer, type Scorer } from "../model/scorers.js";
import { createConvScorer, isSequenceScorer } from "../model/conv-scorer.js";
import { windowsOf } from "../model/windows.js";
import { lowerBound } from "../lower-bound.js";
import { DEFAULT_COVERED_LANGUAGES } from "../language/language-gate.js";
import { POLICY } from "../policy.js";
import { chooseSpans, tokenKinds } from "./span-choice.js";
import { explainedTokens, type TokenRange } from "./explained-tokens.js";
import { withoutLinks, withoutMentions, type MentionContext } from "./addresses.js";
import { withoutSpeakerLabels } from "./speaker-labels.js";
import { FRAME_NAMES, framesOf, type FrameName, type Frames } from "../rules/frames.js";
import { RULE_FAMILIES, type RuleContext } from "../rules/index.js";
import type { RuleFamily } from "../rules/rule-family.js";
import { THIRD_PERSON_FACTOR } from "../rules/insults.js";
import { MINOR_FOR_SEXUAL_EVIDENCE, PLAIN_MINOR } from "../rules/sexual-minors.js";
import type { Candidate, TextHits, WindowEvidence } from "./window-evidence.js";

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
/** How far a rule's score may fall below its evidence when its head disagrees (ranking only). */
const RULE_TIE_BAND = 1e-4;

/** Texts of at most this many words are short requests (prompts), where nudity words count. */
const SHORT_TEXT_WORDS = 60;
/** How many words after the pictures a minor indicator may name who they are of ("nude pics of young teens"). */
const IMAGE_MINOR_REACH = 4;

/** What ends a sentence between two tokens: a full stop, "!" or "?" (the normaliser keeps them). */
const SENTENCE_END = /[.!?]/;

const listWord = (w: string): string => (w.length > 1 && w.charCodeAt(0) === 35 ? w.slice(1) : w);

export function scorerOf(model: ModelFile): Scorer {
  const { header, tensors } = model;
  const t = (name: string): Int8Array | Float32Array => {
    const v = tensors.get(name);
    if (!v) throw new Error(`model file lacks tensor ${name}`);
    return v;
  };
  // Probes not kept (docs/model-history.md, sessions 14, 41, 45) wrote files this version does not
  // read: a vocabulary of pretrained word rows, or a second pooling of the bag (its maximum, an
  // attention-weighted mean). Refused, rather than scored without part of their input.
  if ("vocabulary" in header.hashing || header.params["maxPool"] === 1 || header.params["attention"] === 1) {
    throw new Error("model file uses a feature this version does not read (word vocabulary, maxPool or attention)");
  }
  const heads = header.heads.length;
  const buckets = header.hashing.buckets;
  if (header.family === "linear") {
    return createLinearScorer({ buckets, heads, w: t("w") as Int8Array, scale: t("scale") as Float32Array, bias: t("bias") as Float32Array });
  }
  const p = header.params;
  if (header.family === "conv") {
    return createConvScorer({
      buckets, heads, dim: p["dim"] ?? 0, hidden: p["hidden"] ?? 0, filters: p["filters"] ?? 0, emb: t("emb") as Int8Array, embScale: p["embScale"] ?? 1,
      w1: t("w1") as Float32Array, b1: t("b1") as Float32Array, wc: t("wc") as Float32Array, bc: t("bc") as Float32Array, w2: t("w2") as Float32Array, b2: t("b2") as Float32Array,
    });
  }
  // Several members (the same shape, different seeds) are averaged; files without `members` have one.
  // A member's param is stored under its own name only where it differs from member 0's (ensembleOf).
  const members = Array.from({ length: p["members"] ?? 1 }, (_, k) => {
    const m = (name: string): string => memberName(name, k);
    return {
      buckets, heads, dim: p["dim"] ?? 0, hidden: p["hidden"] ?? 0, emb: t(m("emb")) as Int8Array, embScale: p[m("embScale")] ?? p["embScale"] ?? 1,
      w1: t(m("w1")) as Float32Array, b1: t(m("b1")) as Float32Array, w2: t(m("w2")) as Float32Array, b2: t(m("b2")) as Float32Array,
    };
  });
  // Per-head member weights (an expert member counts for some heads only); absent: the plain mean.
  const weights = memberHeadWeightsOf(tensors.get("memberHeads") as Float32Array | undefined, members.length, heads);
  return createMlpEnsembleScorer(members, weights);
}

interface EngineOptions {
  /**
   * Rule families (their `name`), frames (`frame:<name>`) and the half-window reading (HALVES)
   * to switch off: the rule ledger (src/training/rule-ledger.ts) measures each one's effect this
   * way. Empty in the service.
   */
  disabled?: ReadonlySet<string>;
}

/** The engine: a text classifier that can also score one text under several rule sets at once (the rule ledger). */
export interface Engine extends TextClassifier {
  /** Category verdicts (no explanations) of `text` with each set of families and frames (`frame:<name>`) switched off. */
  scoreVariants(text: string, variants: readonly ReadonlySet<string>[]): Partial<Record<CategoryId, CategoryVerdict>>[];
}

/** The self-harm heads' second reading, in windows half the model's (readHalves). */
const HALF_WINDOW = { size: 240, stride: 120 } as const;
const HALF_HEADS: readonly CategoryId[] = ["self_harm", "self_harm_intent", "self_harm_instructions"];
/** The name that switches the half-window reading off (EngineOptions.disabled), to measure it. */
export const HALVES = "reading:halves";

/**
 * A category's score as answered, to six decimals: the decided one, raised by a half window's
 * reading (readHalves) but, where the whole windows did not flag, to just under the flag bar at
 * most: a score over the bar means flagged, as policies read it (a policy threshold under the bar
 * flags such a text; over it, a score held back by a frame stays unflagged).
 */
export function reported(score: number, half: number | undefined, flagged: boolean, bar: number): number {
  const raised = half === undefined || half <= score ? score : flagged ? half : Math.max(score, Math.min(half, bar - UNDER_BAR));
  return Math.round(raised * 1e6) / 1e6;
}
const UNDER_BAR = 1e-6;

/** How the engine normalises: markup dropped (normalize.ts). */
const MODEL_READING = { dropMarkup: true } as const;
/** The second reading of a text that may use zero-width characters as spaces (normalize.ts mayUseInvisibleSpaces). */
const SPACED_READING = { dropMarkup: true, invisibleAsSpace: true } as const;

export function createEngine(model: ModelFile, options: EngineOptions = {}): Engine {
  const { header } = model;
  const disabled = options.disabled ?? new Set<string>();
  /** Per category, the rule families its policy row lets flag it. */
  const allowed = new Map<CategoryId, ReadonlySet<string>>(CATEGORY_IDS.map((c) => [c, new Set(POLICY[c].rules)]));
  const scorer = scorerOf(model);
  const sequence = isSequenceScorer(scorer) ? scorer : undefined;
  const lex = getLexicons();
  const headIndex = new Map<CategoryId, number>(header.heads.map((c, i) => [c, i]));
  const threshold = (c: CategoryId): number => header.thresholds[c] ?? 0.5;
  const supportBar = (c: CategoryId): number => header.supportThresholds?.[c] ?? threshold(c);
  /** Each head's category, Platt calibration and flag threshold, in head order. */
  const heads = header.heads.map((category) => ({ category, ...(header.calibration[category] ?? { a: 1, b: 0 }), threshold: threshold(category) }));
  /** The categories scored by a learned head of this model, with their policy rows. */
  const headed = CATEGORY_IDS.flatMap((category) => {
    const { head, suppressedBy } = POLICY[category];
    return head !== undefined && headIndex.has(head) ? [{ category, head, threshold: threshold(category), suppressedBy }] : [];
  });
  // Raw logits of the window being scored (classify is synchronous, so one array serves every call).
  const logits = new Float64Array(scorer.heads);

  type Evidence = { windows: WindowEvidence[]; tokens: Token[]; tf: TokenFeatures; hits: TextHits; frames: Frames; halves: Partial<Record<CategoryId, number>> };
  const harmLists = [lex.insults, lex.directAbuse, lex.sexual, lex.sexualActs, lex.nudity, lex.threats, lex.graphicViolence, lex.selfHarmIntent, lex.groups, lex.dehumanising, lex.extermination];
  /** Whether normalised words read as harm: a lexicon's phrase or a head at its bar (a handle's words are kept then: addresses.ts). */
  const readsAsHarm = (words: string): boolean => {
    const tokens = tokenize(words);
    if (tokens.length === 0) return false;
    if (harmLists.some((list) => list.scan(words, tokens).length > 0)) return true;
    scorer.logits(featurize(words, header.hashing, 0, words.length), logits);
    return heads.some((h, i) => sigmoid(h.a * logits[i]! + h.b) >= h.threshold);
  };
  function evaluate(norm: NormalizedText, hasAt: boolean, original: () => (start: number, end: number) => string): Evidence {
    // Asked once per distinct name (a text may repeat one thousands of times).
    const asked = new Map<string, boolean>();
    const readOnce = (words: string): boolean => {
      let harm = asked.get(words);
      if (harm === undefined) asked.set(words, (harm = readsAsHarm(words)));
      return harm;
    };
    const mentions: MentionContext = { hasAt, originalAt: (p) => original()(norm.start[p]!, norm.end[p]!), readsAsHarm: readOnce };
    // A label starts a line when the normalised text before it, back to the text's start or a
    // space that was a line break in the caller's text, is spaces, quote marks and emphasis only.
    const startsLine = (p: number): boolean => {
      for (let q = p - 1; q >= 0; q--) {
        const c = norm.text[q]!;
        if (c === " " && /[\n\r\u2028\u2029]/.test(original()(norm.start[q]!, norm.end[q]!))) return true;
        if (c !== " " && c !== "\t" && c !== ">" && c !== "*") return false;
      }
      return true;
    };
    const originalOf = (from: number, to: number): string => original()(norm.start[from]!, norm.end[to - 1]!);
    const tokens = withoutSpeakerLabels(norm.text, withoutMentions(norm.text, withoutLinks(norm.text, tokenize(norm.text), originalOf, readOnce), mentions), startsLine);
    // Hash every token once; overlapping windows and explanations reuse it.
    const tf = tokenFeaturesOf(norm.text, tokens, header.hashing);
    // Frozen, so the lexicons know these words stay as they are and share their lookups (lexicon.ts).
    // A hashtag is its word to the lists ("#loser" is "loser"); the tokeniser keeps the "#".
    // (Typographic apostrophes are plain ones already: normalize.ts.)
    const words = Object.freeze(tokens.map((t) => listWord(norm.text.slice(t.start, t.end))));
    const short = tokens.length <= SHORT_TEXT_WORDS;
    // A nudity word inside an everyday collocation ("nude lipstick", "the naked truth") is not sexual evidence.
    const everydayNudity = lex.everydayNudity.scan(norm.text, tokens, words);
    // Not negated ("I would never cut myself"), nor an everyday reflexive ("cutting myself off from social media").
    // Methods the writer declares ("I'm gonna jump off a bridge tonight") count in full (declaredSelfHarm).
    const intent = declaredSelfHarm(norm.text, tokens, words,
      notCutsOf(tokens, words, notReflexiveIdiom(norm.text, tokens, words, dropNegated(norm.text, tokens, words, lex.selfHarmIntent.scan(norm.text, tokens, words)))));
    // Scanned once: those aimed at the reader and those said of someone else are both drawn from it.
    const insultWords = lex.insults.scan(norm.text, tokens, words);
    const hits = {
      sexual: outside(lex.sexual.scan(norm.text, tokens, words), everydayNudity),
      graphicViolence: lex.graphicViolence.scan(norm.text, tokens, words),
      // "ten" folds onto "teen" (repeated letters collapse): the caller's spelling decides.
      // Nor is a number of minutes or inches an age ("I'm 15 minutes away").
      minors: notCounting(tokens, words, notFoldedLookalike(lex.minors.scan(norm.text, tokens, words), (h) => original()(norm.start[h.start]!, norm.end[h.end - 1]!))),
      // Not a noun ("in the end you ...", "the hurt you caused"), nor said of a game ("I'll kill you in this match").
      threats: notInGame(norm.text, tokens, words, notNounSense(norm.text, tokens, words, lex.threats.scan(norm.text, tokens, words))),
      declaredThreats: [] as LexiconHit[],
      // Negated ("I would never kill myself") and hyperbolic ("I could kill myself for forgetting my
      // keys", "ugh I want to die") phrases are not statements of intent.
      selfHarmIntent: dropHyperbole(norm.text, tokens, words, intent),
      everydayNudity,
      nudity: short ? outside(lex.nudity.scan(norm.text, tokens, words), everydayNudity) : [],
      // Of those, the ones about pictures ("nude pics"): sexual evidence beside a minor indicator.
      nudeImages: [] as LexiconHit[],
      // A group named as the subject of a dehumanising or exterminationist predicate (group-claims.ts).
      groupClaims: [] as LexiconHit[],
      exterminationClaims: [] as LexiconHit[],
      // Insults aimed at the reader flag by the phrase rule; those said of someone else count at a
      // reduced weight and only with support (thirdPersonInsults below).
      // Direct abuse not negated ("please don't kill yourself", "never drink bleach") nor an everyday reflexive.
      insults: inStartOrderOf([
        ...aimedAtReader(norm.text, tokens, words, insultWords),
        ...notReflexiveIdiom(norm.text, tokens, words, dropNegated(norm.text, tokens, words, lex.directAbuse.scan(norm.text, tokens, words))),
      ]),
      // Insults said of someone else, not of the writer or of a named group (set below, once groups are known).
      thirdPersonInsults: [] as LexiconHit[],
    };
    // Only phrases that name a harm plainly (weight 0.8 or more: "hurt you", not "beat you" or "find you").
    hits.declaredThreats = declaredThreats(norm.text, tokens, words, hits.threats.filter((h) => h.weight >= 0.8));
    // A plain minor indicator ("a 14 year old", "child"; not "girl" or "baby").
    const plainMinors = hits.minors.filter((h) => h.weight >= PLAIN_MINOR);
    // Nudity about pictures, not negated, of a minor: a plain minor indicator after the pictures ("nude
    // pics of young teens") or right before, as their modifier ("schoolgirl nudes"); not "naked baby
    // photos" or "teach your teens never to send nudes".
    const images = dropNegated(norm.text, tokens, words, aboutImagery(norm.text, tokens, words, hits.nudity));
    hits.nudeImages = [
      ...followedBy(norm.text, tokens, words, images, hits.minors.filter((h) => h.weight >= MINOR_FOR_SEXUAL_EVIDENCE), IMAGE_MINOR_REACH),
      ...precededDirectlyBy(norm.text, tokens, images, plainMinors),
    ];
    const groups = lex.groups.scan(norm.text, tokens, words);
    const aimed = new Set(hits.insults.map((h) => h.start));
    const notAimed = dropNegated(norm.text, tokens, words, insultWords.filter((h) => !aimed.has(h.start)));
    // Of someone else: neither the writer ("I'm such an idiot") nor a thing ("my stupid car").
    const aboutOthers = notOfThing(tokens, words, notAboutWriter(norm.text, tokens, words, notAimed));
    hits.thirdPersonInsults = notOfGroup(norm.text, tokens, aboutOthers, groups)
      .map((h) => ({ ...h, weight: h.weight * THIRD_PERSON_FACTOR }));
    if (groups.length > 0) {
      hits.exterminationClaims = groupClaims(norm.text, tokens, words, groups, lex.extermination.scan(norm.text, tokens, words));
      hits.groupClaims = inStartOrderOf([
        ...groupClaims(norm.text, tokens, words, groups, lex.dehumanising.scan(norm.text, tokens, words)),
        // Conspiracy tropes ("X control the media") count as dehumanising claims do.
        ...groupClaims(norm.text, tokens, words, groups, lex.conspiracy.scan(norm.text, tokens, words), true),
        ...hits.exterminationClaims,
      ]);
    }
    const frames = framesOf(lex, norm.text, tokens, words, short, { hits, groups, insultWords, aboutOthers });
    const windows = windowsOf(norm.text, header.window).map((window): WindowEvidence => {
      const inside = (h: LexiconHit): boolean => h.start >= window.from && h.start < window.to;
      const tFrom = firstTokenAtOrAfter(tokens, window.from);
      const tTo = firstTokenAtOrAfter(tokens, window.to);
      const count = tTo - tFrom;
      // A bound that cuts a token (no space to snap to) tokenises differently: featurise that window as is.
      const cut = (tFrom > 0 && tokens[tFrom - 1]!.end > window.from) || (tTo > 0 && tokens[tTo - 1]!.end > window.to);
      const features = cut ? featurize(norm.text, header.hashing, window.from, window.to) : featuresOfTokens(tf, header.hashing.buckets, tFrom, tTo);
      // The conv family also reads the window's tokens (a cut bound drops the cut token's neighbours only).
      if (sequence) sequence.windowLogits(features, tf, tFrom, tTo, logits);
      else scorer.logits(features, logits);
      const scores: Partial<Record<CategoryId, number>> = {};
      for (let i = 0; i < heads.length; i++) scores[heads[i]!.category] = sigmoid(heads[i]!.a * logits[i]! + heads[i]!.b);
      const pick = (list: LexiconHit[]): LexiconHit[] => (list.length === 0 ? list : hitsStartingIn(list, window.from, window.to, inside));
      return {
        window, tFrom, tTo, features, model: scores,
        sexualLex: evidenceScore(pick(hits.sexual), count),
        graphicLex: evidenceScore(pick(hits.graphicViolence), count),
        minors: strongestHit(pick(hits.minors)),
        threats: strongestHit(pick(hits.threats)),
        declaredThreat: strongestHit(pick(hits.declaredThreats)),
        intent: combinePhrases(pick(hits.selfHarmIntent)),
        insult: combinePhrases(pick(hits.insults)),
        thirdPersonInsult: combinePhrases(pick(hits.thirdPersonInsults)),
        nudity: combinePhrases(pick(hits.nudity)),
        nudeImagery: strongestHit(pick(hits.nudeImages)),
        dehumanising: combinePhrases(pick(hits.groupClaims)),
        extermination: combinePhrases(pick(hits.exterminationClaims)),
        everydaySense: false,
      };
    });
    const halves = readHalves(norm.text, tokens, tf);
    for (const w of windows) {
      const inside = (h: LexiconHit): boolean => h.start >= w.window.from && h.start < w.window.to;
      w.everydaySense = w.sexualLex === 0 && w.nudity === 0 && hitsStartingIn(hits.everydayNudity, w.window.from, w.window.to, inside).length > 0;
    }
    return { windows, tokens, tf, hits, frames, halves };
  }

  /** Rule families and frames in force with `off` switched off, computed once per set. */
  const inForce = new WeakMap<ReadonlySet<string>, { rules: readonly RuleFamily[]; offFrames: readonly FrameName[] }>();
  const inForceWith = (off: ReadonlySet<string>) => {
    let found = inForce.get(off);
    if (!found) {
      found = { rules: RULE_FAMILIES.filter((r) => !off.has(r.name)), offFrames: FRAME_NAMES.filter((f) => off.has(`frame:${f}`)) };
      inForce.set(off, found);
    }
    return found;
  };

  /**
   * The self-harm heads also read the text in windows half the model's (HALF_WINDOW): a
   * first-person statement inside a long post is a sentence or two, and a whole window of ordinary
   * prose around it averaged it away (Reddit C-SSRS posts run to thousands of characters). The
   * highest half's score raises the category's score (under the bar: reported), not its flag:
   * halves flag more ordinary long posts too (long neutral Reddit posts flagged 12 -> 23 of 578
   * when they did). Only these
   * heads: hate and violence read better with a whole window's context (docs/model-history.md,
   * session 38). A text of one half window or less is read once.
   */
  function readHalves(text: string, tokens: Token[], tf: TokenFeatures): Partial<Record<CategoryId, number>> {
    const out: Partial<Record<CategoryId, number>> = {};
    if (disabled.has(HALVES) || text.length <= HALF_WINDOW.size) return out;
    for (const half of windowsOf(text, HALF_WINDOW)) {
      const tFrom = firstTokenAtOrAfter(tokens, half.from);
      const tTo = firstTokenAtOrAfter(tokens, half.to);
      if (tTo <= tFrom) continue;
      const features = featuresOfTokens(tf, header.hashing.buckets, tFrom, tTo);
      if (sequence) sequence.windowLogits(features, tf, tFrom, tTo, logits);
      else scorer.logits(features, logits);
      for (const h of HALF_HEADS) {
        const i = headIndex.get(h);
        if (i === undefined) continue;
        const score = sigmoid(heads[i]!.a * logits[i]! + heads[i]!.b);
        if (score > (out[h] ?? 0)) out[h] = score;
      }
    }
    return out;
  }

  function decide(windows: WindowEvidence[], textFrames: Frames, off: ReadonlySet<string> = disabled): Partial<Record<CategoryId, Candidate>> {
    const { rules, offFrames } = inForceWith(off);
    let frames = textFrames;
    if (offFrames.length > 0) {
      frames = { ...textFrames };
      for (const f of offFrames) if (f !== "everydaySense") frames[f] = false;
    }
    const everydaySenseOff = offFrames.includes("everydaySense");
    const out: Partial<Record<CategoryId, Candidate>> = {};
    let at = 0;
    const consider = (c: CategoryId, score: number, flagged: boolean, head: CategoryId | undefined, lexicons: Candidate["lexicons"]): void => {
      const cur = out[c];
      // Phrase rules give several windows the same score (1 for a plain statement); among those the
      // window where the learned head agrees most wins, so explanations come from the harmful part.
      const support = head !== undefined ? (windows[at]!.model[head] ?? 0) : 0;
      // A rule's evidence is shaded by its head's doubt, so plain statements (evidence 1) rank by
      // the head among themselves instead of all tying at 1; flags are the rule's, unchanged.
      if (lexicons.length > 0 && head === c) score = Math.max(0, score - RULE_TIE_BAND * (1 - support));
      // Flagging evidence beats non-flagging; then the higher score wins, then the head's support.
      if (!cur || (flagged && !cur.flagged) || (flagged === cur.flagged && (score > cur.score || (score === cur.score && support > cur.support)))) {
        out[c] = { score, flagged, at, head, lexicons, support };
      }
    };
    let family = "";
    const ctx: RuleContext = {
      frames, claim: frames.negated || frames.counter || frames.supportive,
      threshold: supportBar, lexiconBar: header.lexicon, enabled: (name) => !off.has(name), everydaySense: false,
      // A family may flag only the categories its policy row lists.
      consider: (c, score, flagged, head, lexicons) => { if (allowed.get(c)!.has(family)) consider(c, score, flagged, head, lexicons); },
    };
    for (at = 0; at < windows.length; at++) {
      const w = windows[at]!;
      const active = (f: FrameName): boolean => (f === "everydaySense" ? w.everydaySense && !everydaySenseOff : frames[f]);
      ctx.everydaySense = active("everydaySense");
      // A framed head's score stands, but the head alone does not flag.
      for (const { category: c, head, threshold: bar, suppressedBy } of headed) {
        const s = w.model[head]!;
        consider(c, s, s >= bar && !suppressedBy.some(active), head, []);
      }
      for (const rule of rules) {
        family = rule.name;
        rule.apply(w, ctx);
      }
    }
    return out;
  }

  /**
   * The sentences of a window's explained tokens as token ranges, and each one's calibrated head
   * scores read alone, scored only when a category without a rule's phrase asks for them
   * (keepHarmfulSentences).
   */
  type Sentences = { from: number[]; to: number[]; scores?: Float64Array[] };
  function sentencesOf({ tFrom, tTo }: TokenRange, ev: Evidence, text: string): Sentences {
    const from: number[] = [];
    const to: number[] = [];
    let start = tFrom;
    for (let t = tFrom + 1; t < tTo; t++) {
      if (!SENTENCE_END.test(text.slice(ev.tokens[t - 1]!.end, ev.tokens[t]!.start))) continue;
      from.push(start);
      to.push(t);
      start = t;
    }
    from.push(start);
    to.push(tTo);
    return { from, to };
  }
  function sentenceScores(sentences: Sentences, ev: Evidence): Float64Array[] {
    sentences.scores ??= sentences.from.map((f, k) => {
      const until = sentences.to[k]!;
      const features = featuresOfTokens(ev.tf, header.hashing.buckets, f, until);
      if (sequence) sequence.windowLogits(features, ev.tf, f, until, logits);
      else scorer.logits(features, logits);
      const out = new Float64Array(heads.length);
      for (let i = 0; i < heads.length; i++) out[i] = sigmoid(heads[i]!.a * logits[i]! + heads[i]!.b);
      return out;
    });
    return sentences.scores;
  }

  /**
   * Zeroes the weights of `cand`'s window outside the sentences that carry its harm: those holding
   * a rule's phrase (`ruled`), or without one, those whose head `hi` reaches its bar read alone
   * (the head read "My daughter just learned to ride without training wheels!" as violence 0.50,
   * so a rule's sentence is not second-guessed by it). Where no sentence qualifies alone (a threat
   * said over two: "I will find you. And hurt you."), all stay.
   */
  function keepHarmfulSentences(weights: Float64Array, ruled: Uint8Array, cand: Candidate, range: TokenRange, ev: Evidence, text: string, hi: number, cache: Map<number, Sentences>): void {
    let sentences = cache.get(cand.at);
    if (!sentences) cache.set(cand.at, (sentences = sentencesOf(range, ev, text)));
    const { from, to } = sentences;
    if (from.length < 2) return;
    const { tFrom } = range;
    const holdsRule = from.map((f, k) => ruled.subarray(f - tFrom, to[k]! - tFrom).includes(1));
    // A rule's phrase is the flag's evidence where there is one; else the head's reading of each sentence.
    const keep = holdsRule.includes(true) ? holdsRule : sentenceScores(sentences, ev).map((scores) => scores[hi]! >= heads[hi]!.threshold);
    if (!keep.includes(true)) return;
    for (let k = 0; k < from.length; k++) if (!keep[k]) weights.fill(0, from[k]! - tFrom, to[k]! - tFrom);
  }

  /**
   * The head whose attribution explains category `c`: its own (its policy row's) where the rule
   * that proposed it borrowed another's support, else the candidate's. The threat rules propose
   * harassment_threatening with the harassment head, which weighed the insult in "I will kill you,
   * you idiot" (4.97) three times the threat (1.66); the threat's own head weighs "kill".
   */
  function explainingHead(c: CategoryId, cand: Candidate): number | undefined {
    if (cand.head === undefined) return undefined;
    const own = POLICY[c].head;
    return headIndex.get(own !== undefined && headIndex.has(own) ? own : cand.head);
  }

  function explain(c: CategoryId, cand: Candidate, ev: Evidence, norm: NormalizedText, original: (start: number, end: number) => string, explainers: Map<number, (head: number) => Float64Array>, sentenceScores: Map<number, Sentences>): EvidenceSpan[] {
    const w = ev.windows[cand.at]!;
    const range = explainedTokens(w, ev.tokens);
    const { tFrom, tTo } = range;
    const weights = newFloat64Array(tTo - tFrom);
    const hi = explainingHead(c, cand);
    if (hi !== undefined) {
      // One explainer per window, shared by every category explained from it.
      let ex = explainers.get(cand.at);
      if (!ex) {
        ex = scorer.explainer(w.features, ev.tf, tFrom, tTo);
        explainers.set(cand.at, ex);
      }
      const a = ex(hi);
      for (let k = 0; k < a.length; k++) if (a[k]! > 0) weights[k] = a[k]!;
    }
    // Function words and tokens of no letter or digit, at a phrase's edges (span-choice.ts).
    const kinds = tokenKinds(norm.text, ev.tokens, tFrom, tTo);
    const isFiller = (t: number): boolean => kinds[t - tFrom] === "filler" || kinds[t - tFrom] === "pictograph";
    // Function words inside a rule's phrase, between its content words, read with it ("Immigrants
    // are vermin", "end my life"); those at its edges do not ("hurt you").
    const inPhrase = new Uint8Array(tTo - tFrom);
    // Tokens inside a rule's phrase.
    const ruled = new Uint8Array(tTo - tFrom);
    for (const name of cand.lexicons) {
      for (const h of ev.hits[name] ?? []) {
        if (h.start < w.window.from || h.start >= w.window.to) continue;
        let first = -1;
        let last = -1;
        for (let t = tFrom; t < tTo; t++) {
          const tok = ev.tokens[t]!;
          if (tok.start < h.start || tok.end > h.end) continue;
          weights[t - tFrom]! += h.weight;
          ruled[t - tFrom] = 1;
          if (!isFiller(t)) {
            if (first < 0) first = t;
            last = t;
          }
        }
        for (let t = first + 1; first >= 0 && t < last; t++) inPhrase[t - tFrom] = 1;
      }
    }
    // Spans come from the sentences that carry the harm: a benign sentence before or after it
    // ("My daughter just learned to ride without training wheels! I'll slit your throat.") holds
    // words the head leans on a little ("training"), and those outranked the harm's own.
    if (hi !== undefined) keepHarmfulSentences(weights, ruled, cand, range, ev, norm.text, hi, sentenceScores);
    const spans = chooseSpans(weights, kinds, ruled, inPhrase).map((k) => {
      const t = ev.tokens[tFrom + k]!;
      const start = norm.start[t.start] ?? 0;
      const end = norm.end[t.end - 1] ?? start;
      return { start, end, text: original(start, end), weight: Math.round(weights[k]! * 1000) / 1000 };
    });
    return spans.sort((a, b) => a.start - b.start);
  }

  return {
    id: header.id,
    languages: header.languages ?? DEFAULT_COVERED_LANGUAGES,
    scoreVariants(text: string, variants: readonly ReadonlySet<string>[]): Partial<Record<CategoryId, CategoryVerdict>>[] {
      const norm = normalizeText(text, MODEL_READING);
      let original: ((start: number, end: number) => string) | undefined;
      const ev = evaluate(norm, text.includes("@"), () => (original ??= codePointSlicer(text)));
      return variants.map((off) => {
        const decided = decide(ev.windows, ev.frames, off);
        const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
        for (const c of CATEGORY_IDS) {
          const cand = decided[c];
          if (cand) categories[c] = { score: reported(cand.score, ev.halves[c], cand.flagged, threshold(c)), flagged: cand.flagged };
        }
        return categories;
      });
    },
    classify(text: string, _signal?: AbortSignal, options?: ClassifyOptions): Verdict {
      const explainFrom = options?.explainFrom;
      const verdict = verdictOf(text, MODEL_READING, explainFrom);
      if (!mayUseInvisibleSpaces(text)) return verdict;
      return higherPerCategory([verdict, verdictOf(text, SPACED_READING, explainFrom)]);
    },
  };

  /**
   * The verdict of `text` as normalised with `reading`, explaining the flagged categories and
   * those scoring `explainFrom`'s threshold or more (a policy may flag them: ClassifyOptions).
   */
  function verdictOf(text: string, reading: NormalizeOptions, explainFrom: ClassifyOptions["explainFrom"]): Verdict {
    const norm = normalizeText(text, reading);
    let original: ((start: number, end: number) => string) | undefined;
    const ev = evaluate(norm, text.includes("@"), () => (original ??= codePointSlicer(text)));
    const decided = decide(ev.windows, ev.frames);
    const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
    const explanations: Partial<Record<CategoryId, EvidenceSpan[]>> = {};
    const explainers = new Map<number, (head: number) => Float64Array>();
    const sentenceScores = new Map<number, Sentences>();
    for (const c of CATEGORY_IDS) {
      const cand = decided[c];
      if (!cand) continue;
      const entry = { score: reported(cand.score, ev.halves[c], cand.flagged, threshold(c)), flagged: cand.flagged };
      categories[c] = entry;
      if (isExplained(c, entry, explainFrom)) {
        original ??= codePointSlicer(text);
        explanations[c] = explain(c, cand, ev, norm, original, explainers, sentenceScores);
      }
    }
    return { categories, explanations };
  }
}

/** A list joined from several scans, put in start order so windows can take their hits as a slice (hitsStartingIn). */
function inStartOrderOf(list: LexiconHit[]): LexiconHit[] {
  return list.sort((a, b) => a.start - b.start);
}

/** Whether each hit list of the text being classified is in start order (checked once per list). */
const inStartOrder = new WeakMap<readonly LexiconHit[], boolean>();

/**
 * The hits of `list` that start in [from, to), in list order: a slice found by binary search when the
 * list is in start order (scans return hits so), else `inside` as a filter. Filtering every list for
 * every window made a 100,000-character combined text of one repeated threat quadratic (95 ms).
 */
function hitsStartingIn(list: LexiconHit[], from: number, to: number, inside: (h: LexiconHit) => boolean): LexiconHit[] {
  let sorted = inStartOrder.get(list);
  if (sorted === undefined) {
    sorted = list.every((h, i) => i === 0 || list[i - 1]!.start <= h.start);
    inStartOrder.set(list, sorted);
  }
  if (!sorted) return list.filter(inside);
  return list.slice(lowerBound(list.length, (i) => list[i]!.start < from), lowerBound(list.length, (i) => list[i]!.start < to));
}
