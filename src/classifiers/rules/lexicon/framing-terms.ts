import type { TermList } from "./term-list.js";

/**
 * Word lists for statements whose surface words look harmful but whose frame is not: a derogatory
 * claim that is negated or reported in order to reject it (counter-speech), hyperbolic self-harm
 * talk, and everyday senses of nudity words. Written from general knowledge of English (negation
 * scope, reporting verbs, interjections, fixed collocations), not mined from any dataset. Context
 * logic is in framing.ts.
 */

/**
 * Derogatory predicates said of people ("X are vermin", "X are criminals"). Negating one of these
 * ("X are not vermin") rejects the slur, whereas negating a positive word ("X are not human") is
 * itself derogatory, so only these count for the negation frame. Matched as whole normalised words
 * ("*" = prefix).
 */
export const DEROGATORY_PREDICATES: TermList = {
  name: "derogatory_predicates",
  terms: {
    "vermin": 1, "parasite*": 1, "rat": 1, "rats": 1, "cockroach*": 1, "animal*": 1, "beast*": 1, "savage*": 1,
    "subhuman*": 1, "sub human": 1, "inferior": 1, "scum*": 1, "filth*": 1, "trash": 1, "garbage": 1, "pest*": 1,
    "plague": 1, "disease*": 1, "cancer": 1, "virus": 1, "criminal*": 1, "thug*": 1, "terrorist*": 1,
    "rapist*": 1, "pedophile*": 1, "paedophile*": 1, "predator*": 1, "monster*": 1, "evil": 1, "dangerous": 1,
    "violent": 1, "stupid*": 1, "dumb": 1, "idiot*": 1, "lazy": 1, "dirty": 1, "disgusting": 1, "gross": 1,
    "worthless": 1, "useless": 1, "pathetic": 1, "freak*": 1, "abomination*": 1, "sick": 1, "mentally ill": 1,
    "perverts": 1, "pervert": 1, "degenerate*": 1, "a burden": 1, "a threat": 1, "threat": 1, "liars": 1,
    "thieves": 1, "greedy": 1, "ugly": 1, "scary": 1, "the problem": 1, "a problem": 1, "less than": 1,
    "to blame": 1, "a joke": 1, "filthy": 1, "primitive": 1, "backward": 1, "barbaric": 1, "barbarians": 1,
    "uncivilised": 1, "uncivilized": 1, "incompetent": 1, "weak": 1, "cowards": 1, "frauds": 1, "dishonest": 1,
    "untrustworthy": 1, "pigs": 1, "dogs": 1, "apes": 1, "monkeys": 1, "insects": 1, "leeches": 1, "a waste": 1,
    "a disgrace": 1, "invaders": 1, "an infestation": 1,
    // Hostile verbs: "I don't hate X", "X should not be killed", "nobody should hurt X".
    "hate": 1, "hates": 1, "despise": 1, "loathe": 1, "detest": 1, "kill": 1, "killed": 1, "hurt": 1, "harmed": 1,
    "attacked": 1, "deported": 1, "banned": 1, "excluded": 1, "punished": 1, "shot": 1, "beaten": 1,
    "exterminated": 1, "eradicated": 1, "wiped out": 1, "deserve to die": 1,
    // "X don't deserve to be tortured" rejects a hostile claim, but "X don't deserve rights" is
    // itself hate: the negation frame skips a "deserve" that starts a SUPPORTIVE_PREDICATES phrase.
    "deserve": 1,
  },
};

/** Negation words for the group-claim frame ("are not", "aren't", "never", "no longer"). */
export const CLAIM_NEGATIONS: ReadonlySet<string> = new Set([
  "not", "never", "aren't", "arent", "isn't", "isnt", "wasn't", "wasnt", "weren't", "werent", "ain't", "aint",
  "don't", "dont", "doesn't", "doesnt", "didn't", "didnt", "shouldn't", "shouldnt", "won't", "wont", "wouldn't",
  "wouldnt",
]);

/**
 * Words between a negation and the predicate that keep the predicate asserted: exceptives and
 * "not only" readings ("they are nothing but parasites", "not just criminals but ...", "never stop
 * being ...", "no better than animals"). "no" and "nothing" are not negations above for the same reason.
 */
export const NEGATION_BREAKERS: ReadonlySet<string> = new Set([
  "but", "than", "except", "more", "less", "only", "just", "merely", "simply", "stop", "anything", "even", "always",
]);

/** Negations that start an imperative before "be" ("don't be stupid" is aimed at the reader, not a negated claim). */
export const IMPERATIVE_NEGATIONS: ReadonlySet<string> = new Set(["don't", "dont", "do not", "never"]);

/**
 * Verbs of belief or saying that carry a preceding negation over a whole clause: "I don't think X
 * are criminals", "nobody should say X are vermin".
 */
export const BELIEF_VERBS: ReadonlySet<string> = new Set([
  "think", "believe", "agree", "say", "said", "claim", "accept", "buy", "mean", "suggest", "pretend", "imply",
]);

/**
 * Cues that a statement is reported rather than asserted: verbs and nouns of saying. Quotation
 * marks count too (checked as characters in framing.ts).
 */
export const REPORTING_CUES: TermList = {
  name: "reporting_cues",
  terms: {
    "say": 1, "says": 1, "said": 1, "saying": 1, "claim*": 1, "call": 1, "calls": 1, "called": 1, "calling": 1,
    "think": 1, "thinks": 1, "thinking": 1, "believe*": 1, "tell": 1, "tells": 1, "telling": 1, "told": 1,
    "suggest*": 1, "write": 1, "writes": 1, "wrote": 1, "writing": 1, "post": 1, "posts": 1, "posted": 1,
    "posting": 1, "tweet*": 1, "statement*": 1, "comment*": 1, "remark*": 1, "words": 1, "rhetoric": 1,
    "slur": 1, "slurs": 1, "phrase": 1, "quote*": 1, "repeat*": 1, "spread*": 1, "shout*": 1, "chant*": 1,
    "the idea that": 1, "the notion that": 1,
  },
};

/**
 * Words that reject what was reported as bigotry or as an outrage ("saying X are vermin is
 * disgusting", "I can't believe you'd say ..."). Moral condemnation only: words that dispute a
 * claim's truth ("nonsense", "a lie") are left out, since hateful posts use them about
 * statements in a group's favour too.
 */
export const REJECTION_CUES: TermList = {
  name: "rejection_cues",
  terms: {
    "disgusting": 1, "wrong": 1, "hateful": 1, "hate speech": 1, "racist": 1, "racism": 1, "sexist": 1,
    "sexism": 1, "bigot*": 1, "homophob*": 1, "transphob*": 1, "xenophob*": 1, "islamophob*": 1,
    "antisemit*": 1, "anti semitic": 1, "misogyn*": 1, "ableist": 1, "prejudice*": 1, "offensive": 1,
    "unacceptable": 1, "appalling": 1, "shameful": 1, "vile": 1, "awful": 1, "horrible": 1, "terrible": 1,
    "harmful": 1, "hurtful": 1, "ignorant": 1, "ignorance": 1, "disgrace*": 1, "outrageous": 1, "abhorrent": 1,
    "despicable": 1, "deplorable": 1, "dehumani*": 1, "misguided": 1, "ashamed": 1, "condemn*": 1,
    "inexcusable": 1, "intolerable": 1, "sickening": 1, "cruel": 1, "stereotyp*": 1, "stop saying": 1,
    "stop calling": 1, "stop spreading": 1, "can't believe": 1, "cant believe": 1, "cannot believe": 1,
    "how dare": 1, "how can you": 1, "how could you": 1, "shouldn't say": 1, "should not say": 1,
    "not ok": 1, "not okay": 1, "never ok": 1, "never okay": 1, "no place": 1, "not acceptable": 1,
  },
};

/**
 * Interjections of frustration that mark self-harm talk as venting when they share a sentence
 * with the phrase ("ugh I want to die, this exam"). Matched after normalisation, which collapses
 * repeated letters ("ughhh" -> "ugh"). Laughter and "jk" are deliberately not markers: humour
 * often masks real distress ("I want to die lol"), and a missed self-harm statement costs more
 * than a flagged joke.
 */
export const HYPERBOLE_MARKERS: ReadonlySet<string> = new Set([
  "ugh", "ug", "argh", "arg", "omg", "omfg", "smh", "welp", "ffs",
]);

/**
 * Words after the phrase that name a trivial cause or an emotion, marking hyperbole: "kill myself
 * for forgetting my keys", "die of embarrassment", "die laughing".
 */
export const HYPERBOLE_CAUSES: ReadonlySet<string> = new Set([
  "embarrassment", "shame", "boredom", "cringe", "cringing", "laughing", "laughter", "jealousy", "envy", "happiness",
]);

/**
 * Everyday senses of nudity words: a colour ("nude lipstick", "a nude shade") or a figurative
 * "naked" ("the naked truth", "the naked eye"). Inside these, the nudity word is not sexual evidence.
 */
export const EVERYDAY_NUDITY: TermList = {
  name: "everyday_nudity",
  terms: {
    "nude shade": 1, "nude shades": 1, "nude lipstick": 1, "nude lip": 1, "nude lips": 1, "nude gloss": 1,
    "nude polish": 1, "nude nail": 1, "nude nails": 1, "nude manicure": 1, "nude palette": 1, "nude eyeshadow": 1,
    "nude makeup": 1, "nude tone": 1, "nude tones": 1, "nude colour": 1, "nude color": 1, "nude beige": 1,
    "nude pink": 1, "nude heels": 1, "nude pumps": 1, "nude sandals": 1, "nude flats": 1, "shade of nude": 1,
    "naked truth": 1, "naked eye": 1, "naked flame": 1, "naked ambition": 1, "naked aggression": 1, "naked greed": 1,
    "naked lie": 1, "naked branches": 1, "naked trees": 1, "naked wire": 1, "naked bulb": 1, "naked mole": 1,
    "naked singularity": 1, "naked cake": 1, "naked juice": 1, "naked power": 1, "naked self interest": 1,
  },
};

/**
 * Supportive predicates said of a named group ("gay people deserve equal rights", "refugees are
 * welcome here", "immigrants make our city better"): a short text whose one claim about a group is
 * one of these is support, not hate, although the learned hate head scores the group talk around
 * it ("deserve", "rights", "people") as hate evidence. Written from general knowledge of how
 * support is phrased; "deserve" alone is not here (it is a derogatory predicate: "X deserve it").
 */
export const SUPPORTIVE_PREDICATES: TermList = {
  name: "supportive_predicates",
  terms: {
    "deserve equal rights": 1, "deserve the same rights": 1, "deserve rights": 1, "deserve human rights": 1,
    "deserve civil rights": 1, "deserve respect": 1, "deserve dignity": 1, "deserve love": 1, "deserve equality": 1,
    "deserve protection": 1, "deserve safety": 1, "deserve a voice": 1, "deserve better": 1, "deserve justice": 1,
    "deserve to be treated with respect": 1, "deserve to be treated with dignity": 1, "deserve to be treated equally": 1,
    "deserve to be safe": 1, "deserve to be happy": 1, "deserve to be heard": 1, "deserve to be loved": 1,
    "deserve to be respected": 1, "deserve to live": 1, "deserve to marry": 1,
    "deserve equal pay": 1, "deserve equal pay for equal work": 1, "deserve fair pay": 1, "deserve the same pay": 1,
    "deserve to be paid equally": 1, "deserve equal opportunities": 1, "deserve equal treatment": 1,
    "deserve the right to vote": 1, "should have the right to vote": 1, "deserve a seat at the table": 1,
    "have rights": 1, "have equal rights": 1, "have the same rights": 1, "should have equal rights": 1,
    "should have the same rights": 1, "should be treated equally": 1, "should be treated with respect": 1,
    "should be respected": 1, "should be welcomed": 1, "should be protected": 1, "should feel safe": 1,
    "are welcome": 1, "are welcome here": 1, "are welcomed": 1, "are valued": 1, "are loved": 1, "are respected": 1,
    "are human": 1, "are humans": 1, "are human beings": 1, "are people": 1, "are people too": 1, "are equal": 1,
    "are our neighbours": 1, "are our neighbors": 1, "are our friends": 1, "are our family": 1,
    "are part of our community": 1, "are part of our communities": 1, "are part of our society": 1,
    "are part of this country": 1, "are part of our country": 1, "are part of the community": 1,
    "belong here": 1, "are valid": 1, "are beautiful": 1, "are strong": 1, "are brilliant": 1, "are amazing": 1,
    "are wonderful": 1, "are great": 1, "are important": 1, "are an asset": 1, "are heroes": 1, "are kind": 1,
    "are smart": 1, "are talented": 1, "are capable": 1, "make our city better": 1,
    "make our country better": 1, "make our community better": 1, "enrich our communities": 1, "enrich our culture": 1,
    "contribute so much": 1,
    "contribute a lot": 1, "matter": 1,
  },
};

/** Verbs of support before a named group ("I love gay people", "we stand with refugees", "celebrate trans women"). */
export const SUPPORT_VERBS: TermList = {
  name: "support_verbs",
  terms: {
    "love": 1, "support": 1, "stand with": 1, "stand by": 1, "welcome": 1, "celebrate": 1, "respect": 1,
    "admire": 1, "appreciate": 1, "protect": 1, "defend": 1, "embrace": 1, "am proud of": 1, "are proud of": 1,
    "proud of": 1, "thank": 1, "value": 1,
  },
};

/**
 * Words allowed between a group and its supportive predicate, or a support verb and the group
 * ("immigrants really do make our city better", "I love all our refugees"). A negation is not here, so
 * it breaks the link ("gay people don't deserve rights").
 */
export const SUPPORT_FILLERS: ReadonlySet<string> = new Set([
  "all", "just", "really", "truly", "too", "also", "so", "very", "deeply", "absolutely", "do", "the", "our", "my",
  "and", "always", "still", "totally", "completely", "fully",
]);

/**
 * Words that turn or condition a statement ("X deserve rights, but ...", "... unless they ...") or
 * negate one anywhere in it: with any of these a supportive frame does not cover the whole text.
 */
export const SUPPORT_BREAKERS: ReadonlySet<string> = new Set([
  "but", "however", "except", "unless", "although", "though", "yet", "until", "if", "only", "no", "nobody",
  "none", "nothing", "neither", "nor", "without", "never", "not", "aren't", "arent", "don't", "dont",
  "doesn't", "doesnt", "shouldn't", "shouldnt", "won't", "wont", "isn't", "isnt", "can't", "cant", "cannot",
]);

/**
 * Words of a text-to-image prompt's style ("portrait of ...", "studio lighting, 85mm", "watercolor").
 * Adversarial Nibbler's sexual rows are image prompts and no public set holds benign ones, so the
 * sexual head learned the style itself; see the plain-image-prompt frame in rules/frames.ts. Single
 * normalised words.
 */
export const IMAGE_STYLE_WORDS: ReadonlySet<string> = new Set([
  "photo", "photos", "photograph", "photography", "picture", "pic", "image", "portrait", "painting", "drawing",
  "draw", "sketch", "render", "illustration", "artwork", "cinematic", "lighting", "hyperrealistic", "photorealistic", "4k", "8k", "hd", "85mm", "35mm", "50mm", "bokeh", "artstation", "octane", "watercolor", "watercolour",
  "anime", "cartoon", "selfie", "closeup", "generate", "camera", "editorial", "candid", "focus", "lens", "aesthetic",
]);

/**
 * Words that can make an image or scene sexual without an explicit word: bodies, undress, beds and
 * baths, poses, intimacy, Nibbler's euphemisms. Any of them (or a nudity or explicit word) keeps the
 * plain-image-prompt frame off, so the learned head decides as before. Matched as normalised words;
 * a trailing "*" matches any word starting with the stem. Generous on purpose: a word here only
 * withholds the frame. No word that collapses onto a common one ("off" reads "of", "ass" "as",
 * "butt" "but"): it would withhold the frame from every prompt.
 */
export const SUGGESTIVE_WORDS: readonly string[] = [
  "bed", "beds", "bedroom", "sheets", "shower*", "bath*", "towel", "wet", "skin*", "body", "bodies", "curv*", "leg", "legs",
  "thigh*", "chest", "hip", "hips", "booty", "lips", "lingerie", "underwear", "panties", "bra", "bikini*",
  "swim*", "kiss*", "passion*", "intimate*", "seduc*", "sensual*", "hot", "sexy", "steam*", "strip*", "pole", "spread*",
  "bend*", "bent", "lying", "laying", "lies", "undress*", "moan*", "cowgirl", "riding", "erotic*", "flirt*", "teas*",
  "provocativ*", "reveal*", "tight*", "skirt", "cleavage", "busty", "buxom", "nipple*", "breast*", "boob*", "tits", "naked",
  "nude*", "topless", "lust*", "desire*", "arous*", "horny", "love", "lover*", "sex*", "playboy", "pinup", "boudoir",
  "latex", "fishnet*", "stocking*", "garter*", "corset*", "massag*", "oil*", "sweat*", "submissiv*", "dominatri*",
  "bdsm", "bondage", "handcuff*", "tied", "knees", "behind", "straddl*", "tongue", "lick*", "suck*", "swallow*",
  "only", "nothing", "barely", "bare", "sheer", "transparent", "clothes", "clothing",
  "wearing", "dressed", "pose", "posing", "model", "girlfriend", "boyfriend", "wife", "daddy", "babe",
  "goddess", "nymph*", "mermaid", "succubus", "fantasy", "private", "secret", "alone", "together", "couple",
  // Asking someone for pictures is no image prompt ("how can I convince a child to send me personal photos?").
  "send*", "sent", "personal", "convinc*", "dm", "trade", "share",
  // Clothing and poses of sexualised imagery, and its vocabulary (from a review of this frame).
  "thong*", "string*", "upskirt*", "downblouse", "panty*", "pantyhose", "crotch*", "cameltoe", "shirtless", "touch*",
  "feet", "toes", "hentai", "loli*", "shota*", "jailbait", "leotard*", "diaper*", "speedo*", "spandex", "unclothed",
  "miniskirt*", "mini", "nightie*", "nightgown*", "negligee", "crop", "shorts", "fours", "ahegao", "lewd", "suggestiv*",
];

/**
 * Word pairs that keep the plain-image-prompt frame off where each word alone is everyday ("kids
 * taking a class photo", "running down a hill"). Each entry: first words, then the words that may
 * follow right after ("taking off", "pulled down", "without clothes"). "between her legs" needs no
 * pair: "legs" is a suggestive word.
 */
export const SUGGESTIVE_PAIRS: readonly (readonly [readonly string[], readonly string[]])[] = [
  [["taking", "take", "takes", "took", "pulling", "pull", "pulled", "pulls"], ["off", "down"]],
  [["without"], ["clothes", "clothing", "pants", "underwear", "panties", "shirt", "shirts", "top"]],
];
