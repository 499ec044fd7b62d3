import type { TermList } from "./term-list.js";

/**
 * Word lists for the dehumanising-claim rule (group-claims.ts): a named group of people as the
 * subject of a generic statement that denies them humanity or calls for their removal or death
 * ("immigrants are vermin", "muslims should be exterminated"). Written from general knowledge of
 * English and of how such claims are phrased, not mined from any dataset. Slurs are deliberately
 * absent: reclaimed and homonym uses ("queer", a "fag" cigarette) look the same on the surface.
 */

/**
 * Protected groups named as plural subjects: religions, ethnicities and nationalities, migrants,
 * women, LGBT+ people and disabled people. Plural or "... people" forms only, so a single person
 * ("my Muslim neighbour is ...") does not start a group claim.
 */
export const GROUP_TERMS: TermList = {
  name: "group_terms",
  terms: {
    "muslims": 1, "muslim people": 1, "islamists": 1, "jews": 1, "jewish people": 1, "christians": 1,
    "catholics": 1, "hindus": 1, "sikhs": 1, "buddhists": 1, "atheists": 1,
    "immigrants": 1, "migrants": 1, "refugees": 1, "asylum seekers": 1, "foreigners": 1, "illegals": 1,
    "illegal immigrants": 1, "blacks": 1, "black people": 1, "black men": 1, "black women": 1, "whites": 1,
    "white people": 1, "asians": 1, "asian people": 1, "arabs": 1, "africans": 1, "mexicans": 1, "latinos": 1,
    "hispanics": 1, "indians": 1, "pakistanis": 1, "chinese people": 1, "gypsies": 1, "roma": 1,
    "travellers": 1, "somalis": 1, "nigerians": 1, "turks": 1, "palestinians": 1, "israelis": 1,
    "women": 1, "females": 1, "feminists": 1, "gays": 1, "gay people": 1, "gay men": 1, "lesbians": 1,
    "homosexuals": 1, "bisexuals": 1, "trans people": 1, "transgender people": 1, "trans women": 1,
    "trans men": 1, "transgenders": 1, "transsexuals": 1, "lgbt people": 1, "disabled people": 1,
    "the disabled": 1, "autistic people": 1, "blind people": 1, "deaf people": 1,
  },
};

/**
 * Predicates that deny humanity or call for extermination. Weight 1 flags on its own; "deported"
 * and the like (0.5) are political positions as well as hate, so they need the learned hate head's
 * support. Negation is handled by the rule (a "not" between subject and predicate breaks the link).
 */
export const DEHUMANISING_PREDICATES: TermList = {
  name: "dehumanising_predicates",
  terms: {
    "vermin": 1, "parasites": 1, "rats": 1, "cockroaches": 1, "roaches": 1, "animals": 1, "beasts": 1,
    "savages": 1, "subhuman": 1, "subhumans": 1, "sub human": 1, "sub humans": 1, "not human": 1,
    "less than human": 1, "barely human": 1, "apes": 1, "monkeys": 1, "pigs": 1, "dogs": 1, "insects": 1,
    "leeches": 1, "scum": 1, "filth": 1, "trash": 1, "garbage": 1, "a disease": 1, "a plague": 1,
    "a cancer": 1, "a virus": 1, "an infestation": 1, "a pest": 1, "pests": 1, "a scourge": 1,
    "worthless": 0.5, "inferior": 0.5, "a burden": 0.5, "invaders": 0.5,
    // Criminalising a whole group ("Mexicans are all rapists", "gay people are pedophiles").
    "rapists": 1, "terrorists": 1, "pedophiles": 1, "paedophiles": 1, "groomers": 1, "genetically inferior": 1,
    "criminals": 0.8, "drug dealers": 0.8, "thieves": 0.8, "predators": 0.8,
    // Contempt and denied capacity said of a whole group ("women are too stupid to vote", "gay people
    // are disgusting perverts"); session 9, from realistic posts the head scored under its bar.
    "stupid": 1, "too stupid": 1, "dumb": 1, "too dumb": 1, "less intelligent": 1, "freaks": 1, "perverts": 1,
    "degenerates": 1, "disgusting": 1, "evil": 0.5,
    "shouldn't be allowed to vote": 1, "shouldnt be allowed to vote": 1, "should not be allowed to vote": 1,
    "shouldn't be allowed near children": 1, "shouldnt be allowed near children": 1,
    "should not be allowed near children": 1, "shouldn't have rights": 1, "shouldnt have rights": 1,
    "should not have rights": 1, "should have no rights": 1, "should be banned": 0.6, "should be banned from": 0.6,
  },
};

/**
 * Conspiracy tropes said of a group ("Jews control the media", "immigrants are replacing us"): old
 * hate that needs no slur or insult, so the learned head misses it. Verb-led, so they link to the
 * group without a copula (groupClaims with selfLinking). Weight 1 flags on its own; 0.6 is also
 * said in praise or of powerful groups ("women run the world") and needs the hate head's support.
 */
export const CONSPIRACY_PREDICATES: TermList = {
  name: "conspiracy_predicates",
  terms: {
    "control the media": 1, "control the banks": 1, "control the government": 1, "control the world": 1,
    "control hollywood": 1, "controls the media": 1, "controls the banks": 1, "run the media": 1, "run the banks": 1,
    "run hollywood": 1, "own the media": 1, "own the banks": 1, "control everything": 0.6, "rule the world": 0.6,
    "run the world": 0.6, "are replacing us": 1, "are replacing white people": 1, "want to replace us": 1,
    "will not replace us": 1, "are behind 9/11": 1, "did 9/11": 1, "poison the wells": 1, "killed jesus": 1,
    "spread diseases": 0.8, "spread disease": 0.8, "are taking over": 0.6, "are invading": 0.6,
    "are behind every war": 1, "are behind all wars": 1, "start all the wars": 1, "started every war": 1,
    // Confining a group to a place ("women belong in the kitchen"): verb-led like the tropes.
    "belong in the kitchen": 1,
    // Holocaust denial said of a group ("the Jews made it up for money").
    "made it up for money": 1, "made up the holocaust": 1, "faked the holocaust": 1, "invented the holocaust": 1,
    "lie about the holocaust": 1, "lied about the holocaust": 1,
  },
};

/**
 * Exterminationist and threatening predicates: these also count for hate_threatening. Modal-led
 * phrases ("should be ...", "deserve to die") link subject and predicate without a copula.
 */
export const EXTERMINATION_PREDICATES: TermList = {
  name: "extermination_predicates",
  terms: {
    "should be exterminated": 1, "must be exterminated": 1, "need to be exterminated": 1,
    "should be eradicated": 1, "must be eradicated": 1, "should be wiped out": 1, "must be wiped out": 1,
    "need to be wiped out": 1, "should be gassed": 1, "should be killed": 1, "must be killed": 1,
    "should be shot": 1, "should be hanged": 1, "should be lynched": 1, "should be executed": 1,
    "should be burned": 1, "should be burnt": 1, "should be put down": 1, "should be sterilised": 1,
    "should be sterilized": 1, "should be eliminated": 1, "must be eliminated": 1, "should die": 1,
    "must die": 1, "need to die": 1, "deserve to die": 1, "don't deserve to live": 1,
    "do not deserve to live": 1, "dont deserve to live": 1, "should not exist": 1, "shouldn't exist": 1,
    "should be thrown off buildings": 1, "should be thrown off a building": 1, "should be beheaded": 1,
    "should be hung": 1, "should be drowned": 1, "should be slaughtered": 1, "should be massacred": 1,
    "should be deported": 0.5, "must be deported": 0.5, "should be thrown out": 0.5, "should be locked up": 0.5,
  },
};

/**
 * Words allowed between the group and its predicate ("immigrants are all just filthy vermin",
 * "women are nothing but parasites", "muslims are no better than animals"). Anything else,
 * notably a negation, breaks the link. COPULAS are the link words; one must appear unless the
 * predicate starts with a modal.
 */
export const CLAIM_FILLERS: ReadonlySet<string> = new Set([
  "are", "were", "r", "all", "just", "simply", "literally", "basically", "really", "truly", "nothing", "but",
  "no", "better", "than", "like", "such", "a", "bunch", "of", "filthy", "dirty", "disgusting", "fucking",
  "damn", "dam", "total", "complete", "absolute", "the", "same", "as", "mere", "merely", "only", "little",
  "more", "worse",
]);
export const COPULAS: ReadonlySet<string> = new Set(["are", "were", "r"]);
