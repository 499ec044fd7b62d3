import { normalizeForMatching } from "../normalize/normalize.js";

/**
 * Words that name a protected group of people (religion, ethnicity or nationality, migration,
 * gender, sexual orientation, gender identity, disability), as single lower-case words. A model
 * whose hashing spec sets `identityWords` hashes them specially (features.ts): "placeholder" (the
 * shipped model) makes them all one shared word, "drop" leaves them no features at all.
 *
 * Why: most public text that names a group is hateful (Stormfront, Gab, implicit-hate), so a model
 * learns the group's name itself as hate evidence and flags "Gay people deserve equal rights" or
 * "Immigrants make our city better". Without the name, the heads must find hate in what is said
 * about the group. The dehumanising-claim rule (group-claims.ts) still sees the words, since it
 * reads the text, not the features.
 *
 * Written from general knowledge of English, not mined from any dataset. Slurs are deliberately
 * absent: a slur is evidence in itself and keeps its features. Colour words ("black", "white")
 * are included although they have other senses: what the model loses on "black coffee" is small
 * next to what it learns from "black people".
 */
const IDENTITY_WORDS: ReadonlySet<string> = new Set([
  // religions and their followers
  "muslim", "muslims", "islamic", "jew", "jews", "jewish", "christian", "christians", "catholic", "catholics",
  "protestant", "protestants", "hindu", "hindus", "sikh", "sikhs", "buddhist", "buddhists", "atheist", "atheists",
  "mormon", "mormons",
  // ethnicities, races and nationalities
  "black", "blacks", "white", "whites", "asian", "asians", "arab", "arabs", "african", "africans",
  "mexican", "mexicans", "latino", "latinos", "latina", "latinas", "latinx", "hispanic", "hispanics",
  "indian", "indians", "pakistani", "pakistanis", "chinese", "japanese", "korean", "koreans", "gypsy",
  "gypsies", "roma", "somali", "somalis", "nigerian", "nigerians", "turk", "turks", "turkish",
  "palestinian", "palestinians", "israeli", "israelis", "syrian", "syrians", "afghan", "afghans",
  "polish", "romanian", "romanians", "native", "indigenous", "aboriginal",
  // migration
  "immigrant", "immigrants", "migrant", "migrants", "refugee", "refugees", "foreigner", "foreigners",
  // gender
  "women", "woman", "female", "females", "feminist", "feminists",
  // sexual orientation and gender identity
  "gay", "gays", "lesbian", "lesbians", "homosexual", "homosexuals", "bisexual", "bisexuals", "queer",
  "trans", "transgender", "transgenders", "transsexual", "transsexuals", "lgbt", "lgbtq", "nonbinary",
  // disability
  "disabled", "autistic", "deaf", "blind", "handicapped",
]);

/**
 * The same words as the normaliser spells them (doubled letters collapse: "immigrants" ->
 * "imigrants", "refugee" -> "refuge"), since features are hashed from normalised text.
 */
export const NORMALIZED_IDENTITY_WORDS: ReadonlySet<string> = new Set([...IDENTITY_WORDS].map((w) => normalizeForMatching(w)));
