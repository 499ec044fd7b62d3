import { normalizeForMatching } from "../../normalize/normalize.js";
import { firstTokenAtOrAfter, type Token } from "../../model/features.js";
import type { LexiconHit } from "./lexicon.js";
import { lowerBound } from "../../lower-bound.js";
import { FOLDED_LOOKALIKES } from "./terms.js";
import { FIRST_PERSON_FUTURE, FIRST_PERSON_SINGULAR_FUTURE, INSULT_FILLERS, INSULTED_THINGS, SELF_HARM_METHOD_ACTS, NEGATIONS, POSSESSIVE, POSSESSIVE_FACTOR, SECOND_PERSON, VOCATIVE_INSULTS } from "./personal-terms.js";

/**
 * Context checks for phrase hits whose meaning depends on the words around them: a self-harm phrase
 * under negation, an insult word that is (or is not) aimed at the reader. Pure functions over the
 * normalised text and its tokens, so they run per text and windows reuse the result.
 */

/** Cue words normalised like the text ("really" -> "realy"), so they compare with tokens as is. */
export const normalizedCues = (set: ReadonlySet<string>): ReadonlySet<string> => new Set([...set].map((w) => normalizeForMatching(w)));
const norm = normalizedCues;
const NEG = norm(NEGATIONS);
const YOU = norm(SECOND_PERSON);
const YOUR = norm(POSSESSIVE);
const FILLER = norm(INSULT_FILLERS);
const LOOKBACK = 3;
const MAX_FILLERS = 5;

/** True when tokens i-1 and i are in the same clause: only spaces or apostrophes between them. */
function joined(text: string, tokens: readonly Token[], i: number): boolean {
  for (let k = tokens[i - 1]!.end; k < tokens[i]!.start; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 39) return false;
  }
  return true;
}

/** Whether a negation word sits up to LOOKBACK words before token i, in the same clause. */
function negatedAt(text: string, tokens: readonly Token[], words: readonly string[], i: number): boolean {
  for (let j = i - 1; j >= Math.max(0, i - LOOKBACK); j--) {
    if (!joined(text, tokens, j + 1)) return false;
    if (NEG.has(words[j]!)) return true;
  }
  return false;
}

/** Drops hits under negation ("I would never kill myself", "I'm not suicidal"). */
export function dropNegated(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => !negatedAt(text, tokens, words, firstTokenAtOrAfter(tokens, h.start)));
}

/**
 * Keeps insult hits aimed at the reader: "you" (or "you're", "u", ...) followed, in the same clause,
 * by at most MAX_FILLERS words from INSULT_FILLERS and then the insult ("you are such a stupid
 * idiot", "you moron"). A negation just before "you" ("I'm not calling you an idiot") drops it;
 * possessive "your" counts at a reduced weight. A person insult that is a clause on its own (fillers
 * aside) is a vocative and counts too ("Shut up, idiot.", "Moron!"), while "the author is an idiot"
 * and "idiot drivers" do not.
 */
export function aimedAtReader(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const i = firstTokenAtOrAfter(tokens, h.start);
    // Last token of the hit (phrases such as "piece of shit" span several).
    let last = i;
    while (last + 1 < tokens.length && tokens[last + 1]!.start < h.end) last++;
    const clauseEnds = last + 1 >= tokens.length || !joined(text, tokens, last + 1);
    for (let j = i - 1, fillers = 0; j >= -1 && fillers <= MAX_FILLERS; j--) {
      if (j < 0 || !joined(text, tokens, j + 1)) {
        // A clause that is only the insult (and fillers) is a vocative: "Shut up, idiot." / "Moron!"
        if (clauseEnds && VOCATIVE_INSULTS.has(h.term)) out.push(h);
        break;
      }
      const w = words[j]!;
      if (YOU.has(w) || YOUR.has(w)) {
        if (!negatedAt(text, tokens, words, j)) out.push({ ...h, weight: YOU.has(w) ? h.weight : h.weight * POSSESSIVE_FACTOR });
        break;
      }
      if (!FILLER.has(w)) break;
      fillers++;
    }
  }
  return out;
}

const FUTURE = FIRST_PERSON_FUTURE.map((marker) => marker.map((w) => normalizeForMatching(w)));
const SINGULAR_FUTURE = FIRST_PERSON_SINGULAR_FUTURE.map((marker) => marker.map((w) => normalizeForMatching(w)));
/** Words between a first-person future and its threat ("I will find where you live and hurt you"). */
const THREAT_LOOKBACK = 8;

/** True when tokens i-1 and i are in the same sentence: no ".", "!", "?" or line break between them. */
function sameSentence(text: string, tokens: readonly Token[], i: number): boolean {
  for (let k = tokens[i - 1]!.end; k < tokens[i]!.start; k++) {
    const c = text.charCodeAt(k);
    if (c === 46 || c === 33 || c === 63 || c === 10) return false;
  }
  return true;
}

/** Whether the sentence that holds offset `from` ends with a question mark (a question, not a claim). */
export function questionAfter(text: string, from: number): boolean {
  if (text !== askedText) {
    askedText = text;
    asked = askedFrom(text);
  }
  return from < text.length && asked![from] === 1;
}

/**
 * For every offset of the last text asked about, whether the sentence from there on ends with "?".
 * Computed once per text (classification is synchronous, one text at a time per thread): scanning
 * to the sentence end for each hit took 8 ms on 10,000 characters of one phrase with no full stop.
 */
let askedText: string | undefined;
let asked: Uint8Array | undefined;

function askedFrom(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  let answer = 0;
  for (let k = text.length - 1; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === 63) answer = 1;
    else if (c === 46 || c === 33 || c === 10) answer = 0;
    out[k] = answer;
  }
  return out;
}

/** Length of the FIRST_PERSON_FUTURE marker that ends at token j, or 0. */
function futureEndingAt(words: readonly string[], j: number, markers: readonly (readonly string[])[] = FUTURE): number {
  for (const marker of markers) {
    const start = j - marker.length + 1;
    if (start < 0) continue;
    let same = true;
    for (let k = 0; k < marker.length && same; k++) same = words[start + k] === marker[k];
    if (same) return marker.length;
  }
  return 0;
}

/**
 * Self-harm method hits (SELF_HARM_METHOD_ACTS) the writer declares as their own ("I'm gonna jump off
 * a bridge tonight") count as plain statements (weight 1); the bare act keeps its weight.
 */
export function declaredSelfHarm(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.map((h) => (SELF_HARM_METHOD_ACTS.has(h.term) && !softLanding(text, tokens, words, h) &&
    declaredThreats(text, tokens, words, [h], "singular").length > 0 ? { ...h, weight: 1 } : h));
}

/** Where a jump is a dare or a stunt: "I'm going to jump off the roof into the pool". */
const SOFT_LANDINGS = norm(new Set(["pool", "trampoline", "airbag", "mattress", "snow", "hay", "foam"]));
const LANDING_REACH = 4;

function softLanding(text: string, tokens: readonly Token[], words: readonly string[], h: LexiconHit): boolean {
  return wordAhead(text, tokens, words, firstTokenAtOrAfter(tokens, h.end), LANDING_REACH, SOFT_LANDINGS) >= 0;
}

/** Index of the first word of `set` among the `reach` words from token `from` on, in the same sentence; -1 if none. */
function wordAhead(text: string, tokens: readonly Token[], words: readonly string[], from: number, reach: number, set: ReadonlySet<string>): number {
  for (let k = from; k < tokens.length && k - from < reach && sameSentence(text, tokens, k); k++) if (set.has(words[k]!)) return k;
  return -1;
}

/**
 * Keeps threat hits that the writer declares as their own coming act: a first-person future, plan
 * or wish up to THREAT_LOOKBACK words before the phrase in the same sentence ("I will hurt you",
 * "I'm going to find where you live and hurt you", "imma kill you"), with no negation between them
 * or just before the marker ("I will never hurt you", "I'm not gonna hurt you"), in a sentence that
 * is not a question ("am I going to hurt you if I say it?"). Talk of others' threats ("he said he
 * would kill you") has no first-person marker and stays with the learned heads.
 */
export function declaredThreats(
  text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[],
  /** "singular" for acts only the writer can declare for themselves (declaredSelfHarm). */
  who: "any" | "singular" = "any",
): LexiconHit[] {
  const markers = who === "singular" ? SINGULAR_FUTURE : FUTURE;
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const i = firstTokenAtOrAfter(tokens, h.start);
    if (questionAfter(text, h.end)) continue;
    let negated = false;
    for (let j = i - 1; j >= Math.max(0, i - THREAT_LOOKBACK) && !negated; j--) {
      if (!sameSentence(text, tokens, j + 1)) break;
      const length = futureEndingAt(words, j, markers);
      if (length > 0) {
        // A negation just before the marker ("I'm not gonna ...", "we will never ...") undoes it too.
        const markerStart = j - length + 1;
        if (!negatedAt(text, tokens, words, markerStart)) out.push(h);
        break;
      }
      negated = NEG.has(words[j]!);
    }
  }
  return out;
}

const FIRST_PERSON = norm(new Set(["i", "i'm", "im", "i've", "ive", "i'd", "me", "myself", "we", "we're", "us", "ourselves"]));
/** Words between the writer and an insult they say of themselves ("I can be a real bastard", "I feel like such an idiot"). */
const SELF_FILLER = norm(new Set(["am", "was", "can", "could", "be", "been", "feel", "felt", "real", "bit", "kind", "sort"]));

/**
 * Drops insult hits the writer says of themselves: a first-person subject, then at most MAX_FILLERS
 * filler words ("I'm such an idiot", "sorry I was being a dumbass", "I can be a real bastard"), or
 * "my ... self" around it ("my dumbass self"). Anything else keeps the hit: "I hope that bitch dies",
 * "I think he is an idiot", "my boss is an asshole", "my stupid boss".
 */
export function notAboutWriter(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => !saidOfWriter(text, tokens, words, firstTokenAtOrAfter(tokens, h.start), firstTokenAtOrAfter(tokens, h.end)));
}

/** Whether the insult at tokens [i, next) is said of the writer. */
function saidOfWriter(text: string, tokens: readonly Token[], words: readonly string[], i: number, next: number): boolean {
  // "my dumbass self", "my piece of shit self": the writer; "my stupid boss": the boss.
  if (i > 0 && (words[i - 1] === "my" || words[i - 1] === "our") && (words[next] === "self" || words[next] === "selves")) return true;
  for (let j = i - 1, fillers = 0; j >= 0 && fillers <= MAX_FILLERS; j--, fillers++) {
    if (!joined(text, tokens, j + 1)) return false;
    const w = words[j]!;
    if (FIRST_PERSON.has(w)) return true;
    if (!FILLER.has(w) && !SELF_FILLER.has(w)) return false;
  }
  return false;
}

const THINGS = norm(INSULTED_THINGS);

/**
 * Drops insult hits that name a thing: the insult word directly before a noun of INSULTED_THINGS
 * ("my stupid car won't start again", "that was a dumb mistake on my part"). "my stupid boss" and
 * "this stupid bitch" keep theirs.
 */
export function notOfThing(tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return notBefore(THINGS, tokens, words, hits);
}

/** The hits whose next word is not one of `set`. */
function notBefore(set: ReadonlySet<string>, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => !set.has(words[firstTokenAtOrAfter(tokens, h.end)] ?? ""));
}

/**
 * Words after a number that count something other than years of age: "I'm 15 minutes away",
 * "ur 14 inches", "I'm 10 out of 10" are no minor's age ("15 years old" is its own term).
 */
const COUNTED = norm(new Set([
  "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "second", "seconds", "sec", "secs", "day", "days",
  "week", "weeks", "month", "months", "year", "years", "yr", "yrs", "inch", "inches", "foot", "feet", "ft", "cm", "mm",
  "meter", "meters", "metre", "metres", "mile", "miles", "km", "kilo", "kilos", "kg", "pound", "pounds", "lb", "lbs",
  "stone", "percent", "points", "pts", "times", "bucks", "dollars", "grand", "out", "more", "less", "away", "hundred", "thousand",
]));

/** Drops minor hits followed by a word that counts something else (COUNTED). */
export function notCounting(tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return notBefore(COUNTED, tokens, words, hits);
}

/** How far before an insult (words, same sentence) a group named as its subject is looked for. */
const GROUP_SUBJECT_REACH = 6;

/**
 * Drops insult hits said of a protected group named just before them ("all women are stupid"): that
 * is a claim about a group, judged by the hate head and the group-claim rules with their frames, not
 * harassment of a person.
 */
export function notOfGroup(text: string, tokens: readonly Token[], hits: readonly LexiconHit[], groups: readonly LexiconHit[]): LexiconHit[] {
  if (groups.length === 0 || hits.length === 0) return [...hits];
  // Token index of each group word, ascending: for each insult only the nearest group before it
  // matters (an earlier one is farther and crosses whatever sentence end the nearest one crosses).
  const groupAt = groups.map((g) => firstTokenAtOrAfter(tokens, g.start)).sort((a, b) => a - b);
  return hits.filter((h) => {
    const i = firstTokenAtOrAfter(tokens, h.start);
    const nearest = lowerBound(groupAt.length, (k) => groupAt[k]! < i) - 1;
    const at = nearest >= 0 ? groupAt[nearest]! : -1;
    if (at < 0 || i - at > GROUP_SUBJECT_REACH) return true;
    for (let k = at + 1; k <= i; k++) if (!sameSentence(text, tokens, k)) return true;
    return false;
  });
}

/**
 * Words after "... yourself" that make it an everyday reflexive: "cut yourself some slack", "hang
 * yourself a picture". Normalised like the words they are compared with. Not "off" (which reads
 * "of"): unnormalised it never matched, and "go hang yourself off a bridge" abuses.
 */
const REFLEXIVE_IDIOM_NEXT = norm(new Set(["a", "an", "some", "slack", "short", "from", "up", "down", "in", "into", "out", "to", "the", "on"]));
/** After "cut myself" or "burn myself": "... off (from social media)", "... out (at work)", "... short". */
const MYSELF_IDIOM_NEXT = norm(new Set(["off", "out", "short"]));
/** After "cut myself a/some ...": only these make it an idiom ("some slack", "a slice"); "a few times", "a lot" do not. */
const MYSELF_IDIOM_OBJECTS = norm(new Set(["slack", "slice", "piece", "break"]));
const MYSELF_ARTICLES = norm(new Set(["a", "an", "some"]));
const MYSELF_IDIOM_VERBS = ["cut", "burn"].map((v) => normalizeForMatching(v));
const YOURSELF = normalizeForMatching("yourself");
const MYSELF = normalizeForMatching("myself");

/**
 * Phrase hits that end in "yourself" or "myself" and go on as an everyday phrase in the same clause
 * ("go cut yourself a slice of cake", "I've been cutting myself some slack", "burning myself out at
 * work") are dropped. After "myself" only cutting and burning have such idioms: "I'm going to hang
 * myself off the balcony" and "I cut myself a few times last night" are statements.
 */
export function notReflexiveIdiom(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => {
    const next = firstTokenAtOrAfter(tokens, h.end);
    if (next >= tokens.length || !joined(text, tokens, next)) return true;
    const reflexive = words[next - 1];
    if (reflexive === YOURSELF) return !REFLEXIVE_IDIOM_NEXT.has(words[next]!);
    if (reflexive !== MYSELF) return true;
    const first = firstTokenAtOrAfter(tokens, h.start);
    if (!words.slice(first, next - 1).some((w) => MYSELF_IDIOM_VERBS.some((v) => w.startsWith(v)))) return true;
    if (MYSELF_IDIOM_NEXT.has(words[next]!)) return false;
    return !(MYSELF_ARTICLES.has(words[next]!) && MYSELF_IDIOM_OBJECTS.has(words[next + 1] ?? ""));
  });
}

const CUT_NOUNS = norm(new Set(["cuts", "scars"]));
const OF = normalizeForMatching("of");

/** Drops hits ending in "cuts" or "scars" followed by "of": "hide my cuts of beef" names meat, not wounds. */
export function notCutsOf(tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => {
    const next = firstTokenAtOrAfter(tokens, h.end);
    return !(CUT_NOUNS.has(words[next - 1] ?? "") && words[next] === OF);
  });
}

/** Words that make the next word a noun: "the end you", "the hurt you caused". */
const DETERMINERS: ReadonlySet<string> = new Set(["the", "a", "an", "no", "any", "such"]);
/** Threat phrases' first words that are also nouns ("the end", "the hurt", "a beating"); "you", "i" never are. */
const NOUN_SENSES: ReadonlySet<string> = new Set(["end", "hurt", "beat", "beating", "burn", "cut", "kill", "shot", "punch", "hit", "find"]);

/**
 * Threat hits whose first word is not a noun by a determiner right before it (same clause): "in
 * the end you have to decide" and "I will never forget the hurt you caused" name no act.
 */
export function notNounSense(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => {
    const i = firstTokenAtOrAfter(tokens, h.start);
    return !(i > 0 && NOUN_SENSES.has(words[i]!) && DETERMINERS.has(words[i - 1]!) && joined(text, tokens, i));
  });
}

/**
 * Evidence from several phrase hits: noisy-OR over distinct terms, 1 - prod(1 - weight). One plain
 * statement (weight 1) is enough; weaker signs add up ("I hate myself" + "nobody would miss me"),
 * while the same phrase repeated counts once. Overlapping hits are one statement and count as the
 * strongest of them: "so mature for your age" matches two listed phrases, and "when are your parents
 * home" two more, but each was said once.
 */
export function combinePhrases(hits: readonly LexiconHit[]): number {
  if (hits.length === 0) return 0;
  const best = new Map<string, number>();
  const add = (h: LexiconHit): void => { best.set(h.term, Math.max(best.get(h.term) ?? 0, h.weight)); };
  const ordered = hits.length === 1 ? hits : [...hits].sort((a, b) => a.start - b.start);
  let strongest = ordered[0]!;
  let clusterEnd = strongest.end;
  for (let i = 1; i < ordered.length; i++) {
    const h = ordered[i]!;
    if (h.start < clusterEnd) {
      if (h.weight > strongest.weight) strongest = h;
      clusterEnd = Math.max(clusterEnd, h.end);
      continue;
    }
    add(strongest);
    strongest = h;
    clusterEnd = h.end;
  }
  add(strongest);
  let miss = 1;
  for (const w of best.values()) miss *= 1 - Math.min(1, w);
  return 1 - miss;
}

/**
 * Hits of `hits` followed by a hit of `anchors` at most `reach` words later in the same sentence,
 * each weighted by the smaller of the two: a verb and its object ("seduces a 14 year old"). The
 * other order is mostly reporting ("children being raped", "a teen was groped") and a long post
 * that mentions abuse in one sentence and children in another is not one statement. "as a child"
 * says when, not to whom, and does not count.
 */
export function followedBy(
  text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[], anchors: readonly LexiconHit[], reach: number,
): LexiconHit[] {
  if (hits.length === 0 || anchors.length === 0) return [];
  // Anchors in start order, so each hit looks only at those within reach after it (a text repeating
  // "molested a child" would otherwise pair every act with every minor word: quadratic).
  const ordered = [...anchors].sort((a, b) => a.start - b.start);
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const next = firstTokenAtOrAfter(tokens, h.end);
    let best = 0;
    for (let k = lowerBound(ordered.length, (i) => ordered[i]!.start < h.end); k < ordered.length; k++) {
      const a = ordered[k]!;
      const at = firstTokenAtOrAfter(tokens, a.start);
      if (at - next > reach) break;
      // "molested as a child": when it happened, not to whom (a survivor's account).
      if (words[at - 2] === "as" && words[at - 1] === "a") continue;
      if (!/[.!?\n]/.test(text.slice(h.end, a.start))) best = Math.max(best, Math.min(h.weight, a.weight));
    }
    if (best > 0) out.push({ ...h, weight: best });
  }
  return out;
}

/** Words for pictures and videos, which make a nudity word a request for imagery ("nude pics of ..."). */
const IMAGE_NOUNS = norm(new Set([
  "pic", "pics", "picture", "pictures", "photo", "photos", "image", "images", "video", "videos", "vid", "vids",
  "selfie", "selfies", "snaps", "footage", "webcam", "cam",
]));
/** How many words may stand between a nudity word and its image noun ("naked photos", "pics of her topless"). */
const IMAGE_REACH = 3;

/**
 * Nudity hits about pictures or videos: an image noun at most IMAGE_REACH words before or after, in
 * the same sentence ("nude pics", "photos of naked ...", "topless selfies"), or a word that is one
 * itself ("nudes"). A nudity word alone is often innocent beside a child ("my toddler runs around
 * naked"); a request for such imagery is not.
 */
export function aboutImagery(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const first = firstTokenAtOrAfter(tokens, h.start);
    const next = firstTokenAtOrAfter(tokens, h.end);
    // Spans to the image noun when it follows ("nude pics"), so what comes after the pictures is
    // what they are of ("nude pics of young teens", not "naked baby photos").
    const after = wordAhead(text, tokens, words, next, IMAGE_REACH + 1, IMAGE_NOUNS);
    if (after >= 0) out.push({ ...h, end: tokens[after]!.end });
    else if ((next - first === 1 && /^nude[sz]$|^nodz$/.test(words[first]!)) || imageNounBefore(text, tokens, words, first)) out.push(h);
  }
  return out;
}

function imageNounBefore(text: string, tokens: readonly Token[], words: readonly string[], first: number): boolean {
  for (let k = first - 1; k >= 0 && first - k <= IMAGE_REACH + 1 && sameSentence(text, tokens, k + 1); k--) if (IMAGE_NOUNS.has(words[k]!)) return true;
  return false;
}

/**
 * Drops hits whose original spelling is a common word that the normaliser folds onto the listed one
 * (FOLDED_LOOKALIKES: repeated letters collapse, so "teeeen" matches "teen" and so does "ten").
 * `originalOf` gives the caller's text of a hit; letters and digits count ("Ten", "TEN!"; "te3n" is no "ten").
 */
export function notFoldedLookalike(hits: readonly LexiconHit[], originalOf: (h: LexiconHit) => string): LexiconHit[] {
  return hits.filter((h) => !FOLDED_LOOKALIKES[h.term]?.includes(originalOf(h).toLowerCase().replace(/[^\p{L}\p{N}]/gu, "")));
}

/** Verbs of beating an opponent that threaten only outside a game ("kill you in this match"); not shoot, stab or bullets. */
const GAME_VERBS = norm(new Set(["kill", "murder", "end", "beat", "destroy", "crush", "smash", "wreck", "annihilate", "demolish", "run", "own", "attack"]));
/** Games and their parts, after "in" ("kill you in this match", "in the second half"). Not venues: "at the game tonight" can be a place. */
const GAME_NOUNS = norm(new Set([
  "match", "matches", "game", "games", "round", "rounds", "rematch", "final", "finals", "tournament", "league", "ranked",
  "esports", "quiz", "debate", "chess", "tennis", "poker", "fortnite", "minecraft", "fifa", "valorant", "overwatch", "pubg",
  "warzone", "pvp", "civ", "civilization",
]));
/** "half" and "quarter" are a game's parts only after an ordinal ("in the second half"; not "in half an hour"). */
const GAME_PARTS = norm(new Set(["half", "quarter", "period", "inning", "innings"]));
const ORDINALS = norm(new Set(["first", "second", "third", "fourth", "final", "last", "1st", "2nd", "3rd", "4th", "next"]));
/** Games played "at" ("I'll destroy you at chess"). */
const GAMES_PLAYED_AT = norm(new Set([
  "chess", "tennis", "poker", "scrabble", "monopoly", "darts", "cards", "fifa", "fortnite", "golf", "pool", "trivia", "ping", "checkers", "bowling",
]));
const IN = normalizeForMatching("in");
const AT = normalizeForMatching("at");
/** How many words after "in" its game may be named ("in this ranked match"). */
const GAME_REACH = 3;

/**
 * Drops threat hits said of a game: a verb of beating an opponent (GAME_VERBS),
 * then "in" and a game word within GAME_REACH words in the same sentence ("I'm going to kill you in
 * this match lol", "let's run them over in the second half"), or "at" and a game ("I'll destroy you
 * at chess"). "I'll kill you at the game tonight" and "I'm going to shoot you in this match" keep theirs.
 */
export function notInGame(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => {
    if (!GAME_VERBS.has(words[firstTokenAtOrAfter(tokens, h.start)]!)) return true;
    const next = firstTokenAtOrAfter(tokens, h.end);
    if (next >= tokens.length || !sameSentence(text, tokens, next)) return true;
    if (words[next] === AT) return !(next + 1 < tokens.length && sameSentence(text, tokens, next + 1) && GAMES_PLAYED_AT.has(words[next + 1]!));
    if (words[next] !== IN) return true;
    for (let k = next + 1; k < tokens.length && k - next <= GAME_REACH && sameSentence(text, tokens, k); k++) {
      if (GAME_NOUNS.has(words[k]!) || (GAME_PARTS.has(words[k]!) && ORDINALS.has(words[k - 1]!))) return false;
    }
    return true;
  });
}

/**
 * Hits right after an anchor that modifies them, with nothing but spaces between: "schoolgirl nudes",
 * "teen nude pics", "underage nudes". Weighted by the smaller of the two, as followedBy does.
 */
export function precededDirectlyBy(text: string, tokens: readonly Token[], hits: readonly LexiconHit[], anchors: readonly LexiconHit[]): LexiconHit[] {
  if (hits.length === 0 || anchors.length === 0) return [];
  const endingBefore = new Map<number, number>();
  for (const a of anchors) {
    const next = firstTokenAtOrAfter(tokens, a.end);
    if (next < tokens.length && joined(text, tokens, next)) endingBefore.set(next, Math.max(endingBefore.get(next) ?? 0, a.weight));
  }
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const w = endingBefore.get(firstTokenAtOrAfter(tokens, h.start));
    if (w !== undefined) out.push({ ...h, weight: Math.min(h.weight, w) });
  }
  return out;
}

/** Phrase hits that are stated: not negated just before (dropNegated) and not in a question. */
export function statedPhrases(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return dropNegated(text, tokens, words, hits).filter((h) => !questionAfter(text, h.end));
}
