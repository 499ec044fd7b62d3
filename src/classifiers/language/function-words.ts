/**
 * Function words per language (pronouns, articles, auxiliaries, conjunctions): the evidence
 * language readers lean on for short text, where character n-grams are thin. ELD scores a short
 * French or Spanish sentence typed without accents with English close behind ("Mais je vais te
 * tuer demain matin, sale con." fr 0.73, en 0.54), and close behind reads as English
 * (read-language.ts), so such threats were scored by the English model as harmless.
 *
 * A word here must not also be an English word or common English slang ("die", "con", "hay",
 * "soy", "van", "met", "ben", "yo", "nada", "um", "op"), so English with a loanword or a name
 * ("Los Angeles", "de Gaulle") gets no foreign evidence from it. Not moderation rules: nothing here
 * scores or flags anything; it only decides which language a text is read as.
 */
const LISTS: Record<string, string> = {
  en: "the a an and or but is are was were be been i you he she it we they me my your his her our their this that these those of to in on at for with from by not do does did have has had will would can could should what who how why if just im dont",
  fr: "je tu il elle nous vous ils elles le la les des du au aux et est mais pas ne que qui une un ce cette avec dans sur suis sont mes tes sa ses leur très bien te toi moi lui ça fait vais va j qu",
  es: "el la los las que de del por para una uno es está pero muy tú él ella nosotros ellos su sus se como más qué esto este esta eso voy vas eres estoy todos porque también",
  it: "il gli le di del della che è sono sei hai una uno per mi ti si anche questo questa quello io tu lui lei noi voi loro mio mia tuo tua suo sua molto più cosa",
  pt: "uma de dos das que é não nao você voce ele ela nós eles meu minha seu sua para por mas muito isso isto esse essa estou está vou vai sou aqui também",
  de: "der das und ist nicht ich du sie wir ihr ein eine einen mit auf für von zu auch noch sich bist sind aber oder wie wenn dass mich dich mir dir nur schon kein keine hier",
  nl: "het een jij hij zij wij jullie niet voor maar ook naar bij zijn heb hebt heeft dit deze mijn jouw geen nog wel",
  ro: "și este că în sunt ea ei pentru dar foarte acest această",
  pl: "nie się jest że jak tak mnie ja jestem jesteś ciebie cię być",
  sv: "och att det som är jag inte på för har",
  da: "det jeg ikke på har",
  no: "det jeg ikke på har",
  tr: "bir bu de sen için çok gibi",
  id: "di ini itu aku kamu saya tidak dengan untuk akan",
};

const BY_LANGUAGE: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries(LISTS).map(([language, words]) => [language, new Set(words.split(" "))]));

const WORD = /\p{L}+/gu;

export interface FunctionWordReading {
  /** Whether they say the text is in a language outside `covered` (see functionWordsOf). */
  uncovered: boolean;
  /** The uncovered language most of them belong to, where one leads with two distinct words or more. */
  language?: string;
}

/**
 * What `text`'s function words say: uncovered when it holds at least two distinct words of
 * uncovered languages (words a covered language also has do not count) and more such words than
 * words of covered languages. Says nothing (not uncovered) where a covered language has no list.
 */
export function functionWordsOf(text: string, covered: ReadonlySet<string>): FunctionWordReading {
  for (const c of covered) if (!BY_LANGUAGE.has(c)) return { uncovered: false };
  let coveredCount = 0;
  let uncoveredCount = 0;
  const distinct = new Set<string>();
  const byLanguage = new Map<string, Set<string>>();
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    let inCovered = false;
    const languages: string[] = [];
    for (const [language, words] of BY_LANGUAGE) {
      if (!words.has(word)) continue;
      if (covered.has(language)) inCovered = true;
      else languages.push(language);
    }
    if (inCovered) coveredCount++;
    else if (languages.length > 0) {
      uncoveredCount++;
      distinct.add(word);
      for (const language of languages) {
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
