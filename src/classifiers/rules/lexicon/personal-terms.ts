import type { TermList } from "./term-list.js";

/**
 * Phrase lists for harm aimed at a person: the writer (self-harm intent) or the reader (insults).
 * Public training text for both is thin or stylistically narrow (short prompts, one Reddit corpus),
 * so the learned heads miss plain statements phrased unlike their training rows. These lists were
 * written from general knowledge of how such statements are phrased, not mined from any dataset.
 * Context (negation, who is addressed) is checked in context.ts; weights follow terms.ts: 1 = plain
 * evidence on its own, lower = only with support from the learned head.
 */

/**
 * First-person statements of wanting to die or to hurt oneself. Anchored on first-person words
 * ("myself", "my life", "I ...") so talk about someone else ("she wants to kill herself") and
 * questions about the topic ("what is suicide") do not match.
 */
export const SELF_HARM_INTENT: TermList = {
  name: "self_harm_intent",
  terms: {
    "kill myself": 1, "killing myself": 1, "killed myself": 0.8, "unalive myself": 1, "end my life": 1,
    "ending my life": 1, "end my own life": 1, "take my own life": 1, "taking my own life": 1, "take my life": 0.8,
    "i want to die": 1, "i wanna die": 1, "i just want to die": 1, "i really want to die": 1, "i want to be dead": 1,
    "i wish i was dead": 1, "i wish i were dead": 1, "wish i was dead": 0.8, "wish i were dead": 0.8,
    "wish i was never born": 0.6, "wish i had never been born": 0.6,
    "i'm suicidal": 1, "im suicidal": 1, "i am suicidal": 1, "i feel suicidal": 1, "feeling suicidal": 0.8,
    "i've been suicidal": 1, "ive been suicidal": 1, "been feeling suicidal": 1, "i get suicidal": 1,
    "my suicidal thoughts": 0.8, "i have suicidal thoughts": 1, "having suicidal thoughts": 0.8,
    "my suicide": 0.8, "my suicide note": 1, "suicide note": 0.5, "my suicide attempt": 0.8,
    "don't want to live": 1, "dont want to live": 1, "do not want to live": 1, "don't wanna live": 1,
    "dont wanna live": 1, "don't want to be alive": 1, "dont want to be alive": 1, "don't want to exist": 0.8,
    "dont want to exist": 0.8, "don't want to wake up": 0.6, "dont want to wake up": 0.6,
    "no reason to live": 0.8, "nothing to live for": 0.8, "life is not worth living": 0.6, "better off dead": 0.8,
    "better off without me": 1, "hang myself": 1, "hanging myself": 1, "shoot myself": 1, "drown myself": 1,
    "slit my wrists": 1, "cut my wrists": 1, "cut myself": 0.8, "cutting myself": 0.8, "hurt myself": 0.6,
    "hurting myself": 0.6, "harm myself": 0.8, "harming myself": 0.8, "starve myself": 0.6, "overdose on": 0.5,
    "end it all": 0.6, "ending it all": 0.6, "can't go on": 0.4, "cant go on": 0.4, "can't do this anymore": 0.4,
    "cant do this anymore": 0.4, "want to disappear forever": 0.5, "my last day alive": 1,
    // Weaker signs (C-SSRS style ideation, hopelessness, self-injury talk): each needs support, from
    // the learned head or from other phrases in the same window (see combinePhrases in context.ts).
    "thinking about suicide": 0.6, "thoughts of suicide": 0.6, "thinking of suicide": 0.6,
    "contemplating suicide": 0.8, "considering suicide": 0.8, "suicidal ideation": 0.5, "attempted suicide": 0.5,
    "tried to overdose": 0.8, "i attempted": 0.4, "my attempt": 0.4, "wrote a note": 0.4, "goodbye letter": 0.5,
    "tired of living": 0.6, "tired of life": 0.5, "sick of living": 0.6, "no point in living": 0.6,
    "no point living": 0.6, "life is pointless": 0.5, "what's the point of living": 0.6, "why am i still alive": 0.8,
    "why am i alive": 0.6, "nobody would miss me": 0.6, "no one would miss me": 0.6, "nobody would care if i died": 0.8,
    "no one would care if i died": 0.8, "i'm a burden": 0.5, "im a burden": 0.5, "i am a burden": 0.5,
    "wish i could disappear": 0.4, "sleep forever": 0.4, "never wake up": 0.5, "not wake up": 0.4,
    "i hate myself": 0.3, "i hate my life": 0.3, "hate being alive": 0.8, "i can't take it anymore": 0.4,
    "i cant take it anymore": 0.4, "i give up": 0.3, "relapsed": 0.3, "my scars": 0.4, "my cuts": 0.5,
    "cutting again": 0.6, "started cutting": 0.6, "self harming": 0.4, "self harm": 0.3, "my wrists": 0.5,
    "don't want to be here anymore": 0.8, "dont want to be here anymore": 0.8, "do not want to be here anymore": 0.8,
    "don't want to go on": 0.6, "dont want to go on": 0.6, "i'm done living": 0.8, "im done living": 0.8,
    "done with life": 0.6, "want it all to end": 0.6, "hope i don't wake up": 0.8, "hope i dont wake up": 0.8,
    "wish i hadn't woken up": 0.6, "wish i hadnt woken up": 0.6, "wish i didn't wake up": 0.6, "tired of fighting": 0.3,
    "want to sleep and never wake up": 0.8, "wanna sleep and never wake up": 0.8, "want to go to sleep and never wake up": 0.8,
    // Disordered eating as self-harm: plain when it has gone on ("been starving myself"), else with support.
    "starving myself": 0.6, "been starving myself": 0.8, "make myself throw up": 0.6, "making myself throw up": 0.6,
    // Plans with pills: plain ("take all my pills"), or weaker parts that add up ("a bottle of pills ...
    // going to take them all tonight").
    "take all my pills": 1, "take all of my pills": 1, "swallow all my pills": 1, "take the whole bottle": 0.8,
    "swallow the whole bottle": 0.8, "take them all tonight": 0.6, "bottle of pills": 0.5, "going to overdose": 1,
    "gonna overdose": 1, "want to overdose": 1, "planning to overdose": 1,
    // Questions after a lethal method are not first person, but are asked for oneself often enough that
    // a plain one counts ("how to commit suicide") and a vaguer one needs the head's support
    // ("how many sleeping pills does it take to die"; not "... to die in this game", which it does not give).
    "how to commit suicide": 0.8, "ways to commit suicide": 0.8, "way to commit suicide": 0.8,
    "painless way to die": 0.8, "to die painlessly": 0.8, "does it take to die": 0.5, "would it take to die": 0.5,
    // Preparations stated plainly ("I've written my note and I have the pills ready") and being missed by nobody.
    "written my note": 0.6, "have the pills ready": 0.6, "pills are ready": 0.6, "tonight is the night": 0.3,
    "nobody would care if i disappeared": 0.6, "no one would care if i disappeared": 0.6,
    "take to never wake up": 0.8, "pills to never wake up": 0.8, "to never wake up": 0.5,
    // Asking where to cut oneself to die ("which veins should I cut to bleed out fastest").
    "veins should i cut": 0.8, "which veins to cut": 0.8, "i cut to bleed out": 0.8, "cut to bleed out": 0.8,
    // Session 9, from realistic messages the list missed. Hoarding a means is a plan on its own
    // ("I've been saving up my pills"); farewells and "not waking up" add up with other signs.
    // Each also has an everyday sense ("saving up my pills for the trip", "my goodbye letter to the
    // team"), so one alone needs the head or a second sign.
    "saving up my pills": 0.6, "stockpiling pills": 0.6, "stockpiling my pills": 0.8, "been stockpiling pills": 0.8,
    "been saving up my pills": 0.8, "wrote my goodbye letter": 0.6, "written my goodbye notes": 0.6, "my goodbye note": 0.6,
    "hoarding my pills": 0.8, "hoarding pills": 0.6, "my goodbye letters": 0.5, "written my goodbye letters": 0.6,
    "written my goodbye letter": 0.6, "wrote my goodbye letters": 0.6, "goodbye letters": 0.5, "goodbye note": 0.5, "tell my mom i'm sorry": 0.5,
    "tell my mum i'm sorry": 0.5, "tell my family i'm sorry": 0.5, "tell my parents i'm sorry": 0.5,
    "would it take to not wake up": 0.8, "take to not wake up": 0.5, "to not wake up": 0.4, "want the pain to stop": 0.4, "point in going on": 0.6,
    "don't see any point": 0.6, "dont see any point": 0.6, "don't see the point anymore": 0.6,
    "dont see the point anymore": 0.6, "see no point in": 0.5,
    "point in living": 0.6, "reason to keep going": 0.4, "if i just disappeared": 0.6, "if i was gone": 0.5,
    "if i were gone": 0.5, "everyone would be happier": 0.5, "everyone would be better off": 0.5,
    "happier without me": 0.3, "would be happier without me": 0.6, "easier without me": 0.6, "i cut again": 0.5, "cut again": 0.4,
    // Hiding self-injury, and asking how deep to cut.
    // "how deep to cut the tomato plants back": the bare forms need support ("hide my cuts of beef": notCutsOf).
    "hiding my cuts": 0.8, "hide my cuts": 0.8, "hiding my scars": 0.6,
    "hide my scars": 0.6, "hide self harm": 0.8, "hiding self harm": 0.8, "how deep do i need to cut": 0.4,
    "how deep to cut": 0.4, "how deep should i cut": 0.4, "how deep to cut my wrist": 1, "how deep to cut my wrists": 1,
    "how deep to cut myself": 1, "how deep should i cut myself": 1, "cut to hit a vein": 0.8, "would i need to take to not wake up": 0.8,
    "burned myself": 0.3, "burning myself": 0.3, "been burning myself": 0.8, "burning myself with": 0.5, "burning myself on purpose": 0.8,
    "burned myself on purpose": 0.8, "burning myself with a lighter": 0.8, "been cutting myself": 0.8,
    "punish myself": 0.3, "nobody would notice": 0.4, "no one would notice": 0.4, "nobody would notice if i": 0.4,
    "no one would notice if i": 0.4, "nobody would notice if i was gone": 0.8, "no one would notice if i was gone": 0.8,
    "nobody would notice if i died": 1, "no one would notice if i died": 1, "nobody would notice if i was dead": 0.8,
    "no one would notice if i was dead": 0.8, "nobody would notice if i disappeared": 0.8, "no one would notice if i disappeared": 0.8,
    "nobody would notice if i just disappeared": 0.8, "no one would notice if i just disappeared": 0.8, "would notice if i was gone": 0.8,
    "would notice if i were gone": 0.8, "would care if i was gone": 0.8, "would notice if i disappeared": 0.8,
    "sleep and not wake up": 0.5, "and never wake up": 0.6, "i want to sleep and not wake up": 0.8,
    "i just want to sleep and not wake up": 0.8, "go to sleep and not wake up": 0.8,
    // Methods (SELF_HARM_METHOD_ACTS): the bare act is also an idiom ("if your friends told you to jump
    // off a bridge") or a dare into a pool, so it needs support; declared by the writer ("I'm gonna
    // jump off a bridge tonight", "I want to step in front of a train") it counts as 1 (engine.ts).
    "jump off a bridge": 0.5, "jump off the bridge": 0.5, "jump off the roof": 0.5, "jump off a building": 0.5,
    "drive my car off a bridge": 0.8, "drive my car off a cliff": 0.8, "drive my car off the bridge": 0.8,
    "driving my car off a bridge": 0.8, "driving my car off the bridge": 0.8, "driving my car off a cliff": 0.8,
    "jump in front of a train": 0.5, "step in front of a train": 0.5, "jump in front of a bus": 0.5,
    "step in front of a bus": 0.5, "the rope ready": 0.4, "rope is ready": 0.4, "got the rope ready": 0.8,
    "i have the rope ready": 0.8,
    // No "noose": matched after repeated letters collapse, it reads "nose" ("got up my nose").
    "my last message": 0.4, "goodbye everyone": 0.3,
  },
};

/**
 * Words that undo a following self-harm phrase when they appear up to three words before it in the
 * same clause ("I would never kill myself", "I'm not suicidal", "I used to cut myself"). Matched after
 * normalisation.
 */
export const NEGATIONS: ReadonlySet<string> = new Set([
  "not", "never", "no", "don't", "dont", "didn't", "didnt", "won't", "wont", "wouldn't", "wouldnt", "isn't",
  "isnt", "aren't", "arent", "wasn't", "wasnt", "nobody",
  // Hyperbole, not intent: "I'd rather kill myself than sit through that meeting".
  "rather",
  // Past habit, not current intent: "I used to cut myself".
  "used",
]);

/**
 * Insult words that count when aimed at the reader ("you are a worthless idiot", "you moron"); see
 * context.ts for the "you ... insult" pattern. Slurs are left to the hate head.
 */
export const INSULTS: TermList = {
  name: "insults",
  terms: {
    "idiot*": 1, "moron*": 1, "imbecile*": 1, "stupid*": 0.8, "dumb": 0.8, "dumbass*": 1, "dumbest": 0.8,
    "loser*": 1, "worthless": 1, "pathetic": 0.8, "useless": 0.6, "ugly": 0.8, "fat": 0.5, "disgusting": 0.8,
    "bitch*": 1, "bastard*": 1, "asshole*": 1, "arsehole*": 1, "jerk": 0.8, "scum*": 1, "trash": 0.8,
    "garbage": 0.6, "piece of shit": 1, "dickhead*": 1, "prick": 1, "twat": 1, "cunt": 1, "clown": 0.6,
    "fool": 0.8, "freak": 0.8, "creep": 0.8, "slut": 1, "whore": 1, "pig": 0.6, "coward": 0.6, "liar": 0.6,
    "hypocrite": 0.6, "ignorant": 0.6, "braindead": 1, "brain dead": 1, "retard*": 1, "waste of space": 1,
    "waste of oxygen": 1, "failure": 0.6, "nobody": 0.4, "joke": 0.4, "shit": 0.6, "douche*": 1, "wanker": 1,
    "disgrace": 0.6,
  },
};

/**
 * Insults that name a person: alone in a clause they address the reader as a vocative ("Shut up,
 * idiot.", "Moron!"), which adjectives ("Stupid.", "Trash." about a film) do not. Keys as in INSULTS.
 */
export const VOCATIVE_INSULTS: ReadonlySet<string> = new Set([
  "idiot*", "moron*", "imbecile*", "dumbass*", "loser*", "bitch*", "bastard*", "asshole*", "arsehole*", "jerk",
  "scum*", "piece of shit", "dickhead*", "twat", "cunt", "slut", "whore", "retard*", "douche*", "wanker",
]);

/**
 * Things people curse in everyday talk ("my stupid car won't start", "this useless printer", "a
 * dumb mistake"): an insult word right before one of these names the thing, not a person, so it
 * is no insult of anyone (notOfThing in context.ts). A list of things rather than of people: a
 * person noun missing here keeps its insult, which is the safe side. Ideas, questions, decisions
 * and comments are left out on purpose: "what a stupid question" is aimed at whoever asked, and
 * toxic-spans' annotators mark it as an insult.
 */
export const INSULTED_THINGS: ReadonlySet<string> = new Set([
  "car", "phone", "computer", "laptop", "printer", "keyboard", "mouse", "screen", "tv", "remote", "wifi",
  "internet", "router", "app", "website", "software", "update", "bug", "alarm", "clock", "bus", "train",
  "flight", "traffic", "weather", "cold", "headache", "door", "lock", "machine", "microwave", "fridge", "oven",
  "tire", "tyre", "engine", "bike", "hat", "shirt", "shoes", "haircut", "password", "form", "paperwork",
  "homework", "assignment", "exam", "quiz", "meeting", "mistake",
]);

/**
 * Self-harm methods in SELF_HARM_INTENT whose bare form is also an idiom or a dare: they count as
 * plain (weight 1) when the writer declares them as their own (FIRST_PERSON_SINGULAR_FUTURE before them).
 */
export const SELF_HARM_METHOD_ACTS: ReadonlySet<string> = new Set([
  "jump off a bridge", "jump off the bridge", "jump off the roof", "jump off a building", "jump in front of a train",
  "step in front of a train", "jump in front of a bus", "step in front of a bus",
]);

/**
 * The writer's own coming act, singular only: "we're gonna jump off the roof into the pool" is a dare,
 * and a bare "gonna" has no subject. Word sequences matched after normalisation.
 */
export const FIRST_PERSON_SINGULAR_FUTURE: readonly (readonly string[])[] = [
  ["i", "will"], ["i'll"], ["i", "shall"], ["i", "am", "going", "to"], ["i'm", "going", "to"], ["im", "going", "to"],
  ["i'm", "gonna"], ["im", "gonna"], ["imma"], ["i", "want", "to"], ["i", "wanna"], ["i'm", "about", "to"], ["im", "about", "to"],
];

/**
 * How a writer declares a harm as their own coming act: a first-person future, plan or wish, as
 * word sequences (matched after normalisation). See declaredThreats in context.ts.
 */
export const FIRST_PERSON_FUTURE: readonly (readonly string[])[] = [
  ["i", "will"], ["we", "will"], ["i", "shall"], ["i'll"], ["we'll"], ["i", "am", "going", "to"], ["i'm", "going", "to"],
  ["im", "going", "to"], ["we're", "going", "to"], ["were", "going", "to"], ["gonna"], ["imma"], ["i", "want", "to"],
  ["i", "wanna"], ["i'm", "coming", "to"], ["im", "coming", "to"], ["i", "am", "coming", "to"], ["let's"], ["let", "us"],
];

/** Words that say the reader is addressed ("you", "you're", "ur", chat spellings). */
export const SECOND_PERSON: ReadonlySet<string> = new Set(["you", "u", "ya", "you're", "youre", "ur"]);

/**
 * Possessive "your" aims an insult at the reader too ("your stupid face") but also at things ("take
 * out your trash"), so its matches count at POSSESSIVE_FACTOR of the insult weight (support needed).
 */
export const POSSESSIVE: ReadonlySet<string> = new Set(["your", "yor"]);
export const POSSESSIVE_FACTOR = 0.6;

/**
 * Words allowed between "you" and the insult: copulas, articles, intensifiers and other adjectives
 * ("you are such a fucking stupid idiot"). Anything else breaks the pattern, so "did you see the
 * stupid movie" does not match while "you stupid idiot" does.
 */
export const INSULT_FILLERS: ReadonlySet<string> = new Set([
  "are", "r", "is", "were", "a", "an", "the", "such", "so", "really", "truly", "total", "totally", "complete",
  "completely", "absolute", "absolutely", "utter", "fucking", "fuckin", "fking", "freaking", "frigging", "bloody",
  "damn", "goddamn", "little", "big", "biggest", "most", "just", "being", "one", "sad", "lazy", "dirty", "filthy",
  "look", "sound", "act", "like", "nothing", "but", "ugly", "fat", "dumb", "stupid", "worthless", "pathetic",
  "old", "sorry", "dumbest", "stupidest", "ugliest", "worst", "of", "all", "ever", "guys", "people", "lot", "two",
]);

/** Direct abuse phrases that need no insult word ("fuck you", "nobody likes you", "kill yourself"). */
export const DIRECT_ABUSE: TermList = {
  name: "direct_abuse",
  terms: {
    "fuck you": 1, "fuck u": 1, "fuck yourself": 1, "fuck off": 0.8, "screw you": 0.8, "shut up": 0.5,
    "shut the fuck up": 1, "stfu": 0.8, "kill yourself": 1, "kys": 0.8, "go die": 0.8,
    "neck yourself": 1, "hope you die": 1, "you should die": 1, "drop dead": 0.8, "go to hell": 0.6,
    "nobody likes you": 0.8, "no one likes you": 0.8, "everyone hates you": 0.8, "everybody hates you": 0.8,
    "you suck": 0.8, "you disgust me": 1, "eat shit": 0.8, "piss off": 0.6, "get lost": 0.4,
    // Wishing harm or death on the reader ("I hope you get cancer and die").
    "hope you get cancer": 1, "hope you get aids": 1, "hope you get raped": 1, "hope you get hit by a": 1,
    "hope u die": 1, "hope u get cancer": 1, "hope you rot": 0.8, "hope you suffer": 0.8,
    "hope your family dies": 1, "hope your mom dies": 1, "hope your kids die": 1, "wish you were dead": 1,
    "hope your whole family dies": 1, "hope your entire family dies": 1, "hope you and your family die": 1,
    "hope you die in a fire": 1,
    // Urging the reader to harm themselves ("you should cut yourself again").
    "you should cut yourself": 1, "go cut yourself": 1, "cut yourself again": 0.8, "hang yourself": 1, "drink bleach": 0.8,
    "starve yourself": 0.6,
    // Sexual remarks at the reader that name an act ("I'd bend you over"; also a yoga instruction: with support).
    "bend you over": 0.6,
    "wish you would die": 1, "you deserve to die": 1, "you don't deserve to live": 1, "you dont deserve to live": 1,
    "world would be better without you": 1, "world would be a better place without you": 1,
    "world would be better off without you": 1, "better place without people like you": 0.8,
    // Telling a woman her place ("go back to the kitchen where you belong").
    "go back to the kitchen": 0.8, "get back in the kitchen": 0.8, "back to the kitchen where you belong": 1,
    // Exclusion aimed at the reader.
    "nobody wants you here": 1, "no one wants you here": 1, "nobody wants you": 0.6, "no one wants you": 0.6,
    "you're not welcome here": 0.8, "youre not welcome here": 0.8, "you are not welcome here": 0.8,
    "you don't belong here": 0.8, "you dont belong here": 0.8,
    // Telling the reader the world is better without them, or to end their life. "Nobody would miss
    // you" is also said of leaving a party early, so it needs the head's support unless stronger words join it.
    "nobody would miss you": 0.6, "no one would miss you": 0.6, "you should just end it": 0.8, "just end it already": 0.6,
    "better off if you disappeared": 1, "better off if you just disappeared": 1, "better off if you were dead": 1,
    "better off if you died": 1, "better off without you": 0.6, "you should just disappear": 0.8,
    "do everyone a favor and die": 1, "do us all a favor and die": 1,
    // Sexual remarks and demands at the reader (sexual harassment).
    "show me your tits": 1, "show me your boobs": 1, "show me your dick": 1, "show me your pussy": 1,
    "you have a nice ass": 1, "you have nice tits": 1, "nice tits": 0.8,
    "pic of you in the shower": 0.8, "picture of you in the shower": 0.8, "sit on my face": 1, "suck my dick": 1,
  },
};
