import { CATEGORY_IDS, type CategoryId } from "../categories.js";
import type { CategoryVerdict, EvidenceSpan, TextClassifier, Verdict } from "../classifier.js";
import { aboutImagery, aimedAtReader, combinePhrases, declaredSelfHarm, precededDirectlyBy, notFoldedLookalike, declaredThreats, dropHyperbole, dropNegated, followedBy, notAboutWriter, notEverydaySense, notNounSense, notOfGroup, notOfThing, notReflexiveIdiom, statedPhrases, evidenceScore, getLexicons, groupClaims, groupStartTokens, hasQuotation, imagePromptWords, negatedClaims, normalizedCues, notCutsOf, notInGame, outside, ownSlogans, strongestHit, SUPPORT_MAX_WORDS, supportiveFrame, type LexiconHit } from "../lexicon/index.js";
import { normalizeText, type NormalizedText } from "../normalize/normalize.js";
import { featuresOfTokens, featurize, firstTokenAtOrAfter, tokenFeaturesOf, tokenize, type Token, type TokenFeatures } from "./features.js";
import type { ModelFile } from "./model-file.js";
import { newFloat64Array } from "./typed-slab.js";
import { createLinearScorer, createMlpScorer, type Scorer } from "./scorers.js";
import { windowsOf } from "./windows.js";
import { lowerBound } from "../lower-bound.js";
import { applyPhraseRules, groomingFlags, personal, THIRD_PERSON_FACTOR, thirdPersonInsultFlags } from "./phrase-rules.js";
import type { Candidate, HitList, WindowEvidence } from "./window-evidence.js";

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const MAX_SPANS = 3;

/** How many words may stand between a sexual act and the minor indicator after it for the two to count together. */
export const SEXUAL_ACT_REACH = 4;
/**
 * The minor indicator weight sexual evidence needs beside it to flag sexual_minors: "girl" (0.4),
 * "son" (0.3) or "daughter" (0.5) alone are said of adults too ("the girl at the bar").
 */
const MINOR_FOR_SEXUAL_EVIDENCE = 0.6;
/** Act and minor weights (the smaller of the two) from which a sexual act done to a minor flags sexual_minors. */
const SEXUAL_ACT_FLAG = 0.8;
/** Texts of at most this many words are short requests (prompts), where nudity words count. */
export const SHORT_TEXT_WORDS = 60;
/**
 * Heads that a counter-speech, negation or supportive frame keeps from flagging on their own in a
 * short text ("saying X are vermin is disgusting", "X are not vermin", "gay people deserve equal
 * rights"): the learned heads score the slur or the group talk, not the frame around it. Phrase
 * and lexicon rules still flag.
 */
export const FRAMED_HEADS: ReadonlySet<CategoryId> = new Set(["hate", "hate_threatening", "harassment", "violence"]);
/**
 * Heads that a short text's hyperbolic self-harm phrase ("I could kill myself for ..."), or help
 * offered to others (the help frame), keeps from flagging alone.
 */
export const HYPERBOLE_HEADS: ReadonlySet<CategoryId> = new Set(["self_harm", "self_harm_intent", "self_harm_instructions"]);

/** The help frame covers advice of up to this many words, not a long thread in which someone may be in crisis. */
const HELP_MAX_WORDS = 150;
const FIRST_PERSON_SINGULAR = normalizedCues(new Set(["i", "i'm", "im", "i've", "ive", "i'd", "i'll", "me", "my", "myself", "mine", "imma", "ima", "lemme"]));
/**
 * Words addressed to someone other than the writer, which advice is. Not "everyone" or "people":
 * "Everyone says reach out to a hotline. Want to die anyway." reports advice, it gives none.
 */
const SOMEONE_ELSE = normalizedCues(new Set(["you", "your", "you're", "youre", "u", "ur", "yourself", "them", "their"]));
/** At or over this self-harm head score the help frame yields: the head is sure, whatever the advice around it. */
const HELP_HEAD_CAP = 0.7;
/** How many words after the pictures a minor indicator may name who they are of ("nude pics of young teens"). */
const IMAGE_MINOR_REACH = 4;

/** The plain-image-prompt frame covers prompts of up to this many words. */
const IMAGE_PROMPT_MAX_WORDS = 40;

const listWord = (w: string): string => (w.length > 1 && w.charCodeAt(0) === 35 ? w.slice(1) : w);

const foldApostrophes = (w: string): string => (w.includes("\u2019") || w.includes("\u2018") ? w.replace(/[\u2018\u2019]/g, "'") : w);

/**
 * Slices `text` by code-point offsets (spans report code points). Without surrogates a code point is
 * one UTF-16 unit, so the offsets index the string as they are and no code-point array is built.
 */
function codePointSlicer(text: string): (start: number, end: number) => string {
  if (!/[\ud800-\udfff]/.test(text)) return (start, end) => text.slice(start, end);
  const points = Array.from(text);
  return (start, end) => points.slice(start, end).join("");
}

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

export function createEngine(model: ModelFile): TextClassifier {
  const { header } = model;
  const scorer = scorerOf(model);
  const lex = getLexicons();
  const headIndex = new Map<CategoryId, number>(header.heads.map((c, i) => [c, i]));
  const threshold = (c: CategoryId): number => header.thresholds[c] ?? 0.5;
  /** Each head's category, Platt calibration and flag threshold, in head order. */
  const heads = header.heads.map((category) => ({ category, ...(header.calibration[category] ?? { a: 1, b: 0 }), threshold: threshold(category) }));
  // Raw logits of the window being scored (classify is synchronous, so one array serves every call).
  const logits = new Float64Array(scorer.heads);

  type Evidence = { windows: WindowEvidence[]; tokens: Token[]; tf: TokenFeatures; hits: Record<HitList, LexiconHit[]> & { everydayNudity: LexiconHit[] }; frames: Frames };
  /** Frames of a short text that keep some learned heads from flagging on their own. */
  type Frames = {
    negated: boolean; counter: boolean; supportive: boolean; hyperbole: boolean; competition: boolean; everydayViolence: boolean;
    /** everydayViolence in a text with no insult or abuse: the harassment head does not flag alone either ("you're killing me with these puns"). */
    everydayNoInsult: boolean; disownedInsults: boolean;
    /** Help offered about self-harm (crisis lines, "reach out"), nobody speaking of their own: the self-harm heads do not flag alone. */
    helpGiving: boolean;
    /** A short image prompt with no suggestive, nudity or explicit word: the sexual head does not flag, nor count as evidence. */
    plainImagePrompt: boolean;
  };

  /**
   * Whether a short text frames a derogatory claim so as to reject it: negated ("X are not vermin",
   * "I don't think X are criminals") or reported and condemned ("saying X are vermin is disgusting",
   * "I can't believe you'd say ..."). Short texts only, where the frame governs the one statement;
   * in longer text other sentences may be hateful on their own.
   */
  function negatedClaim(text: string, tokens: Token[], words: readonly string[], derogatory: LexiconHit[], supportive: LexiconHit[], groups: LexiconHit[]): boolean {
    // Every derogatory word must be negated: "X are not stupid, they are vermin" asserts the second.
    // A "deserve" of a good thing is no derogatory word: "X don't deserve rights" negates support.
    const predicates = outside(derogatory, supportive);
    if (predicates.length === 0) return false;
    return negatedClaims(text, tokens, words, predicates, groupStartTokens(tokens, groups)).length === predicates.length;
  }
  function counterSpeech(text: string, tokens: Token[], words: readonly string[]): boolean {
    if (lex.rejection.scan(text, tokens, words).length === 0) return false;
    return hasQuotation(text) || lex.reporting.scan(text, tokens, words).length > 0;
  }

  /**
   * Whether the text's only violent-looking words (`violentWords`, VIOLENT_WORDS hits) sit inside
   * `phrases`: "Those people deserve to be shot. Anyway, time to hit the gym." names an everyday
   * phrase, but "shot" is outside it.
   */
  function onlyViolentWordsIn(violentWords: () => LexiconHit[], phrases: LexiconHit[]): boolean {
    return phrases.length > 0 && outside(violentWords(), phrases).length === 0;
  }

  /** Frames of a short text that keep some learned heads from flagging on their own. */
  function framesOf(
    text: string, tokens: Token[], words: readonly string[], short: boolean,
    found: { hits: Evidence["hits"]; groups: LexiconHit[]; intent: LexiconHit[]; insultWords: LexiconHit[]; aboutOthers: LexiconHit[] },
  ): Frames {
    const { hits, groups } = found;
    // Scanned once for the negation and the supportive frames.
    const wanted = short || (groups.length > 0 && tokens.length <= SUPPORT_MAX_WORDS);
    const derogatory = wanted ? lex.derogatory.scan(text, tokens, words) : [];
    const supportive = wanted ? lex.supportive.scan(text, tokens, words) : [];
    // A short text with no threat, declared violent act, weapon or graphic word (outside an everyday
    // phrase: "draw blood"): where an everyday or sporting sense of a violent word may frame it.
    const noViolentPhrase = short && hits.threats.length === 0 && hits.violentActs.length === 0 && hits.weaponMaking.length === 0;
    const everydayViolence = noViolentPhrase ? lex.everydayViolence.scan(text, tokens, words) : [];
    const nothingViolent = noViolentPhrase && outside(hits.graphicViolence, everydayViolence).length === 0;
    const competitionVerbs = nothingViolent ? lex.competitionVerbs.scan(text, tokens, words) : [];
    // Scanned at most once, and only when a frame below needs them.
    let violentHits: LexiconHit[] | undefined;
    const violentWords = (): LexiconHit[] => (violentHits ??= lex.violentWords.scan(text, tokens, words));
    const everyday = nothingViolent && onlyViolentWordsIn(violentWords, everydayViolence);
    // "Portrait of a grandmother laughing, warm light", "photo of kids playing in the park": the
    // sexual head scored Nibbler's prompt style itself (0.93, and with "kids" that made sexual_minors).
    const plainImagePrompt = tokens.length <= IMAGE_PROMPT_MAX_WORDS && hits.sexual.length === 0 && hits.nudity.length === 0 && imagePromptWords(words);
    return {
      negated: short && negatedClaim(text, tokens, words, derogatory, supportive, groups),
      counter: short && counterSpeech(text, tokens, words),
      // Support for a named group, and nothing harmful beside it (lexicon/supportive-claims.ts).
      supportive: supportiveFrame(text, tokens, words, groups, [...hits.insults, ...hits.threats, ...hits.veiledThreats, ...hits.violentActs, ...hits.groupClaims], { supportive, derogatory }, lex),
      // Every first-person phrase of a short text was hyperbole: the head, which saw the same words, does not flag alone.
      hyperbole: short && found.intent.length > 0 && hits.selfHarmIntent.length === 0,
      // A verb of beating an opponent in a short text about a game ("our team destroyed them 5-0"),
      // with no threat, weapon or graphic word, and no violent word outside such verbs or everyday
      // phrases: the violence head does not flag alone.
      competition: competitionVerbs.length > 0 && lex.competitionCues.scan(text, tokens, words).length > 0 &&
        onlyViolentWordsIn(violentWords, [...competitionVerbs, ...everydayViolence]),
      // Violent words only in everyday fixed phrases ("kill a process", "bath bomb"), nothing violent beside them.
      everydayViolence: everyday,
      everydayNoInsult: everyday && found.insultWords.length === 0 && hits.insults.length === 0 && hits.veiledThreats.length === 0,
      // Every insult word of a short text is negated or said of the writer ("I'm such an idiot lol",
      // "you are not stupid"), and nothing threatens: the harassment head does not flag alone.
      disownedInsults: short && found.insultWords.length > 0 && hits.insults.length === 0 && found.aboutOthers.length === 0 &&
        hits.threats.length === 0 && hits.veiledThreats.length === 0,
      // Advice and awareness ("if you're struggling, reach out to a crisis line", "encourage them to
      // see a counsellor"). Any first-person word keeps the frame off ("don't tell me to call a
      // hotline, I'm doing it tonight"), and so does an intent phrase of 0.5 or more (under that they
      // name the topic: "self harm is a sign of distress"). Chat drops its subject ("Suicidal again.
      // Therapist says reach out"), so the text must also be addressed to someone (SOMEONE_ELSE); and
      // the frame yields where the head is sure (HELP_HEAD_CAP, in decide).
      helpGiving: tokens.length <= HELP_MAX_WORDS && !found.intent.some((h) => h.weight >= 0.5) && hits.edPromotion.length === 0 &&
        !words.some((w) => FIRST_PERSON_SINGULAR.has(w)) && words.some((w) => SOMEONE_ELSE.has(w)) && lex.helpCues.scan(text, tokens, words).length > 0,
      plainImagePrompt,
    };
  }

  function evaluate(norm: NormalizedText, original: () => (start: number, end: number) => string): Evidence {
    const tokens = tokenize(norm.text);
    // Hash every token once; overlapping windows and explanations reuse it.
    const tf = tokenFeaturesOf(norm.text, tokens, header.hashing);
    // Typographic apostrophes match the lists' plain ones ("you’re dead", "i’m suicidal").
    const curly = /[\u2018\u2019]/.test(norm.text);
    // Frozen, so the lexicons know these words stay as they are and share their lookups (lexicon.ts).
    // A hashtag is its word to the lists ("#thinspo" is "thinspo"); the tokeniser keeps the "#".
    const words = Object.freeze(tokens.map((t) => listWord(curly ? foldApostrophes(norm.text.slice(t.start, t.end)) : norm.text.slice(t.start, t.end))));
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
      minors: notFoldedLookalike(lex.minors.scan(norm.text, tokens, words), (h) => original()(norm.start[h.start]!, norm.end[h.end - 1]!)),
      sexualActs: [] as LexiconHit[],
      selfHarmMethods: lex.selfHarmMethods.scan(norm.text, tokens, words),
      // Not a noun ("in the end you ...", "the hurt you caused"), nor said of a game ("I'll kill you in this match").
      threats: notInGame(norm.text, tokens, words, notNounSense(norm.text, tokens, words, lex.threats.scan(norm.text, tokens, words))),
      declaredThreats: [] as LexiconHit[],
      violentActs: [] as LexiconHit[],
      veiledThreats: statedPhrases(norm.text, tokens, words, lex.veiledThreats.scan(norm.text, tokens, words)),
      // Not statedPhrases: grooming is often asked ("are you home alone?").
      grooming: dropNegated(norm.text, tokens, words, lex.grooming.scan(norm.text, tokens, words)),
      // "I would never make a bomb" is not a request for one.
      weaponMaking: dropNegated(norm.text, tokens, words, lex.weaponMaking.scan(norm.text, tokens, words)),
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
      // Stated as the writer's own: not negated or asked, nor reported or called a lie (ownSlogans).
      hateSlogans: ownSlogans(norm.text, tokens, words, statedPhrases(norm.text, tokens, words, lex.hateSlogans.scan(norm.text, tokens, words))),
      edPromotion: statedPhrases(norm.text, tokens, words, lex.edPromotion.scan(norm.text, tokens, words)),
    };
    // Only phrases that name a harm plainly (weight 0.8 or more: "hurt you", not "beat you" or "find you").
    hits.declaredThreats = declaredThreats(norm.text, tokens, words, hits.threats.filter((h) => h.weight >= 0.8));
    // A plain minor indicator ("a 14 year old", "child"; not "girl" or "baby").
    const plainMinors = hits.minors.filter((h) => h.weight >= SEXUAL_ACT_FLAG);
    // A sexual act counts only with a plain minor indicator as its object ("seduces a 14 year old").
    hits.sexualActs = followedBy(norm.text, tokens, words, lex.sexualActs.scan(norm.text, tokens, words), plainMinors, SEXUAL_ACT_REACH);
    // Nudity about pictures, not negated, of a minor: a plain minor indicator after the pictures ("nude
    // pics of young teens") or right before, as their modifier ("schoolgirl nudes"); not "naked baby
    // photos" or "teach your teens never to send nudes".
    const images = dropNegated(norm.text, tokens, words, aboutImagery(norm.text, tokens, words, hits.nudity));
    hits.nudeImages = [
      ...followedBy(norm.text, tokens, words, images, hits.minors.filter((h) => h.weight >= MINOR_FOR_SEXUAL_EVIDENCE), IMAGE_MINOR_REACH),
      ...precededDirectlyBy(norm.text, tokens, images, plainMinors),
    ];
    hits.violentActs = declaredThreats(norm.text, tokens, words, notInGame(norm.text, tokens, words, notEverydaySense(tokens, words, lex.violentActs.scan(norm.text, tokens, words))));
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
    const frames = framesOf(norm.text, tokens, words, short, { hits, groups, intent, insultWords, aboutOthers });
    const windows = windowsOf(norm.text, header.window).map((window): WindowEvidence => {
      const inside = (h: LexiconHit): boolean => h.start >= window.from && h.start < window.to;
      const tFrom = firstTokenAtOrAfter(tokens, window.from);
      const tTo = firstTokenAtOrAfter(tokens, window.to);
      const count = tTo - tFrom;
      // A bound that cuts a token (no space to snap to) tokenises differently: featurise that window as is.
      const cut = (tFrom > 0 && tokens[tFrom - 1]!.end > window.from) || (tTo > 0 && tokens[tTo - 1]!.end > window.to);
      const features = cut ? featurize(norm.text, header.hashing, window.from, window.to) : featuresOfTokens(tf, header.hashing.buckets, tFrom, tTo);
      scorer.logits(features, logits);
      const scores: Partial<Record<CategoryId, number>> = {};
      for (let i = 0; i < heads.length; i++) scores[heads[i]!.category] = sigmoid(heads[i]!.a * logits[i]! + heads[i]!.b);
      const pick = (list: LexiconHit[]): LexiconHit[] => (list.length === 0 ? list : hitsStartingIn(list, window.from, window.to, inside));
      return {
        window, tFrom, tTo, features, model: scores,
        sexualLex: evidenceScore(pick(hits.sexual), count),
        graphicLex: evidenceScore(pick(hits.graphicViolence), count),
        minors: strongestHit(pick(hits.minors)),
        sexualAct: strongestHit(pick(hits.sexualActs)),
        methods: strongestHit(pick(hits.selfHarmMethods)),
        threats: strongestHit(pick(hits.threats)),
        declaredThreat: strongestHit(pick(hits.declaredThreats)),
        veiledThreat: combinePhrases(pick(hits.veiledThreats)),
        grooming: combinePhrases(pick(hits.grooming)),
        violentAct: combinePhrases(pick(hits.violentActs)),
        weaponMaking: strongestHit(pick(hits.weaponMaking)),
        intent: combinePhrases(pick(hits.selfHarmIntent)),
        insult: combinePhrases(pick(hits.insults)),
        thirdPersonInsult: combinePhrases(pick(hits.thirdPersonInsults)),
        nudity: combinePhrases(pick(hits.nudity)),
        nudeImagery: strongestHit(pick(hits.nudeImages)),
        dehumanising: combinePhrases(pick(hits.groupClaims)),
        extermination: combinePhrases(pick(hits.exterminationClaims)),
        hateSlogan: combinePhrases(pick(hits.hateSlogans)),
        edPromotion: combinePhrases(pick(hits.edPromotion)),
        everydaySense: false,
      };
    });
    for (const w of windows) {
      const inside = (h: LexiconHit): boolean => h.start >= w.window.from && h.start < w.window.to;
      w.everydaySense = w.sexualLex === 0 && w.nudity === 0 && hitsStartingIn(hits.everydayNudity, w.window.from, w.window.to, inside).length > 0;
    }
    return { windows, tokens, tf, hits, frames };
  }

  function decide(windows: WindowEvidence[], frames: Frames): Partial<Record<CategoryId, Candidate>> {
    const out: Partial<Record<CategoryId, Candidate>> = {};
    const consider = (c: CategoryId, score: number, flagged: boolean, at: number, head: CategoryId | undefined, lexicons: Candidate["lexicons"]): void => {
      const cur = out[c];
      // Phrase rules give several windows the same score (1 for a plain statement); among those the
      // window where the learned head agrees most wins, so explanations come from the harmful part.
      const support = head !== undefined ? (windows[at]!.model[head] ?? 0) : 0;
      // Flagging evidence beats non-flagging; then the higher score wins, then the head's support.
      if (!cur || (flagged && !cur.flagged) || (flagged === cur.flagged && (score > cur.score || (score === cur.score && support > cur.support)))) {
        out[c] = { score, flagged, at, head, lexicons, support };
      }
    };
    // A framed claim: the learned heads of FRAMED_HEADS, and the third-person insult rule, do not flag on their own.
    const claim = frames.negated || frames.counter || frames.supportive;
    windows.forEach((w, at) => {
      // The help frame, where the self-harm head is not sure on its own.
      const helped = frames.helpGiving && (w.model.self_harm ?? 0) < HELP_HEAD_CAP;
      for (const { category: c, threshold: bar } of heads) {
        const s = w.model[c]!;
        // A framed claim or an everyday sense of a nudity word: the head's score stands, but the head
        // alone does not flag (it scores the words, not the frame).
        const unframed = !(claim && FRAMED_HEADS.has(c)) && !((frames.hyperbole || helped) && HYPERBOLE_HEADS.has(c)) && !(c === "sexual" && (w.everydaySense || frames.plainImagePrompt)) &&
          !((frames.competition || frames.everydayViolence) && c === "violence") &&
          !((frames.disownedInsults || frames.everydayNoInsult) && c === "harassment");
        consider(c, s, s >= bar && unframed, at, c, []);
      }
      // Lexicon evidence backs up the thin classes; it can raise a score, never lower one.
      consider("sexual", w.sexualLex, w.sexualLex >= header.lexicon.sexual, at, undefined, ["sexual"]);
      consider("violence_graphic", w.graphicLex, w.graphicLex >= header.lexicon.graphicViolence, at, undefined, ["graphicViolence"]);
      consider("violence", w.graphicLex, w.graphicLex >= header.lexicon.graphicViolence, at, undefined, ["graphicViolence"]);
      // sexual_minors has no honest training data: sexual evidence AND a minor indicator in the same window.
      // Nudity words about pictures in a short request count as sexual evidence here ("nude pics of
      // young teens"), though alone they need the head's support to flag sexual.
      // Under the plain-image-prompt frame the head's sexual score is the prompt style, not evidence.
      const sexual = Math.max(frames.plainImagePrompt ? 0 : (w.model.sexual ?? 0), w.sexualLex, w.nudeImagery);
      const sm = Math.min(sexual, w.minors);
      const sexualWithMinor = w.minors >= MINOR_FOR_SEXUAL_EVIDENCE && sexual >= threshold("sexual_minors");
      consider("sexual_minors", sm, sexualWithMinor, at, "sexual", w.nudeImagery > 0 ? ["minors", "sexual", "nudity"] : ["minors", "sexual"]);
      // The sexual evidence that flags sexual_minors is sexual content: flag it as such too, so an
      // answer never says "sexual content involving minors" without "sexual content".
      if (sexualWithMinor) consider("sexual", sexual, true, at, "sexual", w.nudeImagery > 0 ? ["sexual", "nudity"] : ["sexual"]);
      // A sexual act ("seduces", "molested") beside a plain minor indicator ("a 14 year old", "child")
      // flags too: such text is rarely explicit enough for the sexual evidence above.
      if (w.sexualAct >= SEXUAL_ACT_FLAG) consider("sexual_minors", w.sexualAct, true, at, undefined, ["minors", "sexualActs"]);
      if (groomingFlags(w)) consider("sexual_minors", w.grooming, true, at, undefined, ["grooming", "minors"]);
      // Thin threat data: a direct threat phrase plus harassment or violence evidence in the same window.
      const hostile = Math.max(w.model.harassment ?? 0, w.model.violence ?? 0);
      // An explicit phrase ("kill you") is strong evidence itself, so the hostility bar is lower (as for sexual_minors).
      const hostileFlag = (w.model.harassment ?? 0) >= 0.6 * threshold("harassment") || (w.model.violence ?? 0) >= 0.6 * threshold("violence");
      const threat = Math.min(hostile, w.threats);
      consider("harassment_threatening", threat, w.threats >= 0.8 && hostileFlag, at, "harassment", ["threats"]);
      // A threat is harassment too.
      if (w.threats >= 0.8 && hostileFlag) consider("harassment", Math.max(threat, w.model.harassment ?? 0), true, at, "harassment", ["threats"]);
      // A threat the writer declares as their own ("I will find where you live and hurt you") needs no
      // support from the heads, which rarely saw one phrased so plainly: it threatens, harasses and is violent.
      if (w.declaredThreat > 0) {
        consider("harassment_threatening", Math.max(w.declaredThreat, w.model.harassment_threatening ?? 0), true, at, "harassment", ["threats"]);
        consider("harassment", Math.max(w.declaredThreat, w.model.harassment ?? 0), true, at, "harassment", ["threats"]);
        consider("violence", Math.max(w.declaredThreat, w.model.violence ?? 0), true, at, "violence", ["threats"]);
      }
      // Phrase rules of one shape (phrase-rules.ts): veiled threats, violent acts, weapon making,
      // insults aimed at the reader, nudity words in short requests.
      applyPhraseRules(w, threshold, (c, score, explain, lexicons) => consider(c, score, true, at, explain, lexicons));
      if (!claim && thirdPersonInsultFlags(w, threshold("harassment"))) {
        consider("harassment", Math.max(w.thirdPersonInsult, w.model.harassment ?? 0), true, at, "harassment", ["thirdPersonInsults"]);
      }
      // A first-person self-harm phrase ("I want to end my life"): the learned heads rarely see
      // long first-person posts, so plain statements are missed without it.
      // Under the help frame the only intent phrases are topic words ("self-harming"): they do not add up.
      const intentFlag = !helped && personal(w.intent, w.model.self_harm ?? 0, threshold("self_harm"));
      if (intentFlag) {
        consider("self_harm", Math.max(w.intent, w.model.self_harm ?? 0), true, at, "self_harm", ["selfHarmIntent"]);
        consider("self_harm_intent", Math.max(w.intent, w.model.self_harm_intent ?? 0), true, at, "self_harm_intent", ["selfHarmIntent"]);
      }
      // A dehumanising claim about a group ("immigrants are vermin"): plain statements the hate head
      // misses held out. A counter-speech frame ("saying X are vermin is disgusting") keeps it off;
      // negated claims never match (group-claims.ts).
      if (!frames.counter && personal(w.dehumanising, w.model.hate ?? 0, threshold("hate"))) {
        consider("hate", Math.max(w.dehumanising, w.model.hate ?? 0), true, at, "hate", ["groupClaims"]);
        // Calls for a group's extermination or death threaten too.
        if (personal(w.extermination, w.model.hate ?? 0, threshold("hate"))) {
          consider("hate_threatening", Math.max(w.extermination, w.model.hate_threatening ?? 0), true, at, "hate_threatening", ["exterminationClaims"]);
        }
      }
      // An extremist slogan or Holocaust denial, unless a counter-speech frame condemns it.
      if (!frames.counter && personal(w.hateSlogan, w.model.hate ?? 0, threshold("hate"))) {
        consider("hate", Math.max(w.hateSlogan, w.model.hate ?? 0), true, at, "hate", ["hateSlogans"]);
      }
      // Eating-disorder promotion is self-harm content, not the writer's intent.
      const edFlag = personal(w.edPromotion, w.model.self_harm ?? 0, threshold("self_harm"));
      if (edFlag) consider("self_harm", Math.max(w.edPromotion, w.model.self_harm ?? 0), true, at, "self_harm", ["edPromotion"]);
      // Thin instructions data: a self-harm window that also asks for or gives a method counts.
      const sh = Math.max(w.model.self_harm ?? 0, intentFlag ? w.intent : 0, edFlag ? w.edPromotion : 0);
      const inst = Math.min(sh, w.methods);
      consider("self_harm_instructions", inst, w.methods >= 0.6 && (intentFlag || edFlag || sh >= threshold("self_harm")) && inst >= threshold("self_harm_instructions"), at, "self_harm", ["selfHarmMethods"]);
    });
    return out;
  }

  function explain(cand: Candidate, ev: Evidence, norm: NormalizedText, original: (start: number, end: number) => string, explainers: Map<number, (head: number) => Float64Array>): EvidenceSpan[] {
    const w = ev.windows[cand.at]!;
    const { tFrom, tTo } = w;
    const weights = newFloat64Array(tTo - tFrom);
    const hi = cand.head !== undefined ? headIndex.get(cand.head) : undefined;
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
    for (const name of cand.lexicons) {
      for (const h of ev.hits[name] ?? []) {
        if (h.start < w.window.from || h.start >= w.window.to) continue;
        for (let t = tFrom; t < tTo; t++) {
          const tok = ev.tokens[t]!;
          if (tok.start >= h.start && tok.end <= h.end) weights[t - tFrom]! += h.weight;
        }
      }
    }
    const top: number[] = [];
    for (let k = 0; k < weights.length; k++) if (weights[k]! > 0) top.push(k);
    top.sort((x, y) => weights[y]! - weights[x]! || x - y);
    const spans = top.slice(0, MAX_SPANS).map((k) => {
      const t = ev.tokens[tFrom + k]!;
      const start = norm.start[t.start] ?? 0;
      const end = norm.end[t.end - 1] ?? start;
      return { start, end, text: original(start, end), weight: Math.round(weights[k]! * 1000) / 1000 };
    });
    return spans.sort((a, b) => a.start - b.start);
  }

  return {
    id: header.id,
    classify(text: string): Verdict {
      const norm = normalizeText(text);
      let original: ((start: number, end: number) => string) | undefined;
      const ev = evaluate(norm, () => (original ??= codePointSlicer(text)));
      const decided = decide(ev.windows, ev.frames);
      const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
      const explanations: Partial<Record<CategoryId, EvidenceSpan[]>> = {};
      const explainers = new Map<number, (head: number) => Float64Array>();
      for (const c of CATEGORY_IDS) {
        const cand = decided[c];
        if (!cand) continue;
        categories[c] = { score: Math.round(cand.score * 1e6) / 1e6, flagged: cand.flagged };
        if (cand.flagged) {
          original ??= codePointSlicer(text);
          explanations[c] = explain(cand, ev, norm, original, explainers);
        }
      }
      return { categories, explanations };
    },
  };
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
