/**
 * Function words per language (pronouns, articles, auxiliaries, conjunctions): the evidence
 * language readers lean on for short text, where character n-grams are thin. ELD scores a short
 * French or Spanish sentence typed without accents with English close behind ("Mais je vais te
 * tuer demain matin, sale con." fr 0.73, en 0.54), and close behind reads as English
 * (read-language.ts), so such threats were scored by the English model as harmless.
 *
 * A word here must not also be an English word or common English slang ("die", "con", "hay",
 * "soy", "van", "met", "ben", "yo", "nada", "um", "op", "per", "sus"), and one that leads into a
 * capitalised word is a name's particle, not counted ("Los Angeles", "Maria de la Cruz", "Van der
 * Sar", "Di Maria"), so English with names or loanwords gets no foreign evidence from them. Not
 * moderation rules: nothing here scores or flags anything; it only decides which language a text
 * is read as.
 */
const LISTS: Record<string, string> = {
  en: "the a an and or but is are was were be been i you he she it we they me my your his her our their this that these those of to in on at for with from by not do does did have has had will would can could should what who how why if just im dont",
  fr: "je tu il elle nous vous ils elles le la les des du au aux et est mais pas ne que qui une un ce cette avec dans sur suis sont mes tes sa ses leur très bien te toi moi lui ça fait vais qu es",
  es: "el la los las que de del por para una uno es está pero muy tú él ella nosotros ellos su se como más qué esto este esta eso voy vas eres estoy todos porque también un te tu",
  it: "il gli le di del della che è sono sei hai una uno mi ti si anche questo questa quello tu lui lei noi voi loro mio tuo tua suo sua molto più cosa",
  pt: "uma de das que é não nao você voce ele ela nós eles meu minha seu sua para por mas muito isso isto esse essa estou está vou vai sou aqui também",
  de: "der das und ist nicht ich du sie wir ihr ein eine einen auf für von zu auch noch sich bist sind aber oder wie wenn dass mich dich mir nur schon kein keine hier",
  nl: "het een jij hij zij wij jullie niet voor maar ook naar bij zijn heb hebt heeft dit deze mijn jouw geen nog wel",
  ro: "și este că în sunt ei pentru dar foarte acest această",
  pl: "nie się jest że jak mnie jestem jesteś ciebie cię być",
  sv: "och att som är inte på för",
  da: "jeg ikke på",
  no: "jeg ikke på",
  tr: "bir bu de için çok gibi",
  id: "di ini itu aku kamu saya tidak dengan untuk akan",
  // Hindi and Urdu written in Latin letters (Reddit, tweets), which ELD has no table for.
  "hi-Latn": "hai hain mujhe tumhe tujhe kya nahi nhi nahin bhi aur toh mein hoon tha thi raha rahi rahe apni apna apne tera teri mera meri kyun kaise",
  // Russian in Latin letters ("ya tebya ubyu"), which ELD has no table for either; "ya", "ty", "da",
  // "net", "on", "my", "nu", "ona", "vy" and "kak" left out (English words or slang), "moya" (a name).
  "ru-Latn": "menya tebya menia tebia tebe mne sebya eto chto shto vse vsyo pochemu segodnya sejchas seychas kogda gde zdes tozhe tolko ochen budu budet byl byla bylo mozhno nado nichego nikogda esli yesli potomu hochu khochu zhe uzhe eshche moy tvoy tvoya svoy svoyu",
  // Arabic in Latin letters (Arabizi) without its digits (the 3 of "3ashan" splits the word);
  // "ana" left out (pro-ana talk), "hiya", "mesh", "hatha" and "kda" (gamers' kills/deaths/assists)
  // too, and names ("elli", "mish", "ashan").
  "ar-Latn": "enta inta enti inti howa huwa ehna ihna ento entu msh keda kida ayez illi kaman lazem lazim hada",
};

const WORD = /\p{L}+/gu;
/** Each listed word's languages: one lookup per word of the text. */
const LANGUAGES_OF: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const [language, words] of Object.entries(LISTS)) for (const word of words.split(" ")) map.set(word, [...(map.get(word) ?? []), language]);
  return map;
})();
const isListWord = (word: string): boolean => LANGUAGES_OF.has(word);
const isCapitalised = (word: string): boolean => word !== word.toLowerCase() && word[0] === word[0]!.toUpperCase();

const SCAN = /\p{L}+/gu;
/** Each covered set's words of uncovered languages only, built once per set. */
const foreignOnly = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

function foreignOnlyWords(covered: ReadonlySet<string>): ReadonlySet<string> {
  let words = foreignOnly.get(covered);
  if (!words) {
    words = new Set([...LANGUAGES_OF].filter(([, languages]) => !languages.some((language) => covered.has(language))).map(([word]) => word));
    foreignOnly.set(covered, words);
  }
  return words;
}

/**
 * Whether `text` holds at least `atLeast` distinct words of uncovered languages only: a cheap test
 * before functionWordsOf (no names, no counts, stops at the `atLeast`th), for text that is almost
 * always covered (every piece of every text read as covered asks it).
 */
export function holdsForeignWords(text: string, covered: ReadonlySet<string>, atLeast: number): boolean {
  const words = foreignOnlyWords(covered);
  // Made only once a foreign word is met: most sentences hold none.
  let seen: string[] | undefined;
  // A pattern of its own: an early return leaves lastIndex set, and matchAll (functionWordsOf) starts a copy of WORD there.
  SCAN.lastIndex = 0;
  for (let m = SCAN.exec(text); m; m = SCAN.exec(text)) {
    const word = m[0].toLowerCase();
    if (!words.has(word) || seen?.includes(word)) continue;
    (seen ??= []).push(word);
    if (seen.length >= atLeast) return true;
  }
  return false;
}

export interface FunctionWordReading {
  /** Whether they say the text is in a language outside `covered` (see functionWordsOf). */
  uncovered: boolean;
  /** The uncovered language most of them belong to, where one leads with two distinct words or more. */
  language?: string;
}

/**
 * For each word of `written`, 1 where the words after it, through any run of list words, reach a
 * capitalised one: it is then a name's particle ("de la Cruz", "Van der Sar"), not a function word.
 * Filled from the end.
 */
function nameParticles(written: readonly string[]): Uint8Array {
  const particles = new Uint8Array(written.length + 1);
  for (let k = written.length - 2; k >= 0; k--) {
    const next = written[k + 1]!;
    particles[k] = isCapitalised(next) || (isListWord(next.toLowerCase()) && particles[k + 1] === 1) ? 1 : 0;
  }
  return particles;
}

/**
 * Where, in `text`, the earliest word of uncovered languages only starts from which the rest of the
 * text reads as uncovered by functionWordsOf (and is at least `minChars` long), or undefined. One
 * pass from the end, so a text with several such words is not read once per word.
 */
export function foreignTailStart(text: string, covered: ReadonlySet<string>, minChars: number): number | undefined {
  for (const c of covered) if (!Object.hasOwn(LISTS, c)) return undefined;
  const foreignWords = foreignOnlyWords(covered);
  const written = Array.from(text.matchAll(WORD));
  const particles = nameParticles(written.map((m) => m[0]));
  let coveredCount = 0;
  let uncoveredCount = 0;
  const distinct = new Set<string>();
  let found: number | undefined;
  for (let k = written.length - 1; k >= 0; k--) {
    if (particles[k]) continue;
    const word = written[k]![0].toLowerCase();
    const listed = LANGUAGES_OF.get(word);
    if (!listed) continue;
    if (!foreignWords.has(word)) {
      coveredCount++;
      continue;
    }
    uncoveredCount++;
    distinct.add(word);
    const start = written[k]!.index;
    if (distinct.size >= 2 && uncoveredCount > coveredCount && text.length - start >= minChars) found = start;
  }
  return found;
}

/**
 * What `text`'s function words say: uncovered when it holds at least two distinct words of
 * uncovered languages (words a covered language also has do not count) and more such words than
 * words of covered languages. Says nothing (not uncovered) where a covered language has no list.
 */
export function functionWordsOf(text: string, covered: ReadonlySet<string>): FunctionWordReading {
  for (const c of covered) if (!Object.hasOwn(LISTS, c)) return { uncovered: false };
  // Both answers need two distinct foreign words: a text without them is read without building
  // anything (ten items of "ok\u3002" repeated, a short sentence each, cost 4 times prose).
  if (!holdsForeignWords(text, covered, 2)) return { uncovered: false };
  let coveredCount = 0;
  let uncoveredCount = 0;
  const distinct = new Set<string>();
  const byLanguage = new Map<string, Set<string>>();
  const written = Array.from(text.matchAll(WORD), (m) => m[0]);
  const particles = nameParticles(written);
  for (let k = 0; k < written.length; k++) {
    if (particles[k]) continue;
    const word = written[k]!.toLowerCase();
    const listed = LANGUAGES_OF.get(word);
    if (!listed) continue;
    if (listed.some((language) => covered.has(language))) coveredCount++;
    else {
      uncoveredCount++;
      distinct.add(word);
      for (const language of listed) {
        let seen = byLanguage.get(language);
        if (!seen) byLanguage.set(language, (seen = new Set()));
        seen.add(word);
      }
    }
  }
  const uncovered = distinct.size >= 2 && uncoveredCount > coveredCount;
  let language: string | undefined;
  let best = 1;
  let tie = false;
  for (const [candidate, words] of byLanguage) {
    if (words.size > best) [language, best, tie] = [candidate, words.size, false];
    else if (words.size === best) tie = true;
  }
  return { uncovered, ...(language && !tie ? { language } : {}) };
}
