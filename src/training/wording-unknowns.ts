/**
 * Label repairs where a source's label says something its text does not support
 * (`--wording-unknowns`; docs/model-history.md, session 44), made in the training and calibration
 * rows. Labels only: nothing here runs at inference, and the held-out evaluation keeps every
 * source's own labels.
 *
 * - `cssrs`: Reddit C-SSRS copies each user's risk level onto every post the user wrote. Of 3,763
 *   posts of Ideation, Behavior and Attempt users, 808 name suicide, dying or self-harm; the rest
 *   are advice to others, medication, relationships ("Have you tried not taking it?"). Those posts
 *   teach the self-harm heads that talk about feelings is intent, so they become self_harm unknown.
 * - `insults`: sources whose "not toxic" / "normal" / "none" was not a judgement of person-directed
 *   abuse hold insults of the reader labelled harassment 0 ("Shut up old fool", "you idiot?"): 290
 *   in Toxic Spans, 168 HateXplain, 71 Davidson, 53 Guest. They become harassment unknown. CAD is
 *   left alone: its annotators read the thread, so its neutral insults are banter by judgement.
 */
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { Corpus } from "./corpus.js";
import { PARENT, type Example } from "./datasets/example.js";

/** Suicide, dying or self-harm named in a post (the clinical placeholders C-SSRS put in, such as "Depression", do not count). */
export const SELF_HARM_WORDING = new RegExp([
  String.raw`suicid|kill(ing)? (my ?self|me)\b|end(ing)? (it all|my life|it\b)|self[- ]?harm|cut(ting)? (my ?self|again)|\bcutting\b`,
  String.raw`want(ed)? to die|\bdie\b|\bdead\b|overdos|take my (own )?life|razor|\bpills?\b|hang(ing)? myself|\bkms\b`,
  String.raw`don'?t want to (live|be here|exist)|not wake up|jump off|\bslit|\bOD\b|hurt(ing)? myself|no reason to live|attempt`,
].join("|"), "i");

/** An insult addressed to the reader, or a dismissal of them. */
export const READER_INSULT = new RegExp([
  String.raw`\b(you|you'?re|youre|ur|u r|u|you are|your a|ya)\b[^.!?\n]{0,25}\b(idiot|moron|stupid|dumb|retard(ed)?|loser|pathetic|scum|trash|garbage|piece of (shit|crap|garbage)|ass ?hole|bitch|cunt|dick(head)?|twat|prick|jerk|clown|imbecile|fool|worthless|disgusting|ignorant|dumbass|fuck(ing)? (idiot|moron)|shithead|douche(bag)?)\b`,
  String.raw`\b(shut up|stfu|fuck (you|off)|go to hell|screw you)\b`,
].join("|"), "i");

const INSULT_SOURCES = new Set(["toxic-spans", "hatexplain-magpie", "davidson-hate-offensive", "guest-misogyny"]);

export type WordingRepair = "cssrs" | "insults";

interface Repair {
  readonly dataset: (name: string) => boolean;
  readonly category: string;
  /** The label value the text must fail to support. */
  readonly label: 0 | 1;
  readonly supported: (text: string) => boolean;
}

const REPAIRS: Record<WordingRepair, Repair> = {
  cssrs: { dataset: (d) => d === "reddit-cssrs-suicide", category: "self_harm", label: 1, supported: (t) => SELF_HARM_WORDING.test(t) },
  insults: { dataset: (d) => INSULT_SOURCES.has(d), category: "harassment", label: 0, supported: (t) => !READER_INSULT.test(t) },
};

export function parseWordingRepairs(value: string | undefined): WordingRepair[] {
  if (!value || value === "none") return [];
  return value.split(",").map((part) => {
    const name = part.trim();
    if (!(name in REPAIRS)) throw new Error(`--wording-unknowns: "${name}" is not one of ${Object.keys(REPAIRS).join(", ")}`);
    return name as WordingRepair;
  });
}

/**
 * The corpus with each repair's unsupported labels (and their sub-categories') unknown in the
 * `train` rows; the count per repair, for the log and the model header.
 */
export function withWordingUnknowns(c: Corpus, examples: readonly Example[], train: Uint32Array, repairs: readonly WordingRepair[]): { corpus: Corpus; changed: Record<string, number> } {
  const H = CATEGORY_IDS.length;
  const labels = c.labels.slice();
  const changed: Record<string, number> = {};
  for (const name of repairs) {
    const repair = REPAIRS[name];
    const head = CATEGORY_IDS.indexOf(repair.category as never);
    const cats = [head, ...Object.entries(PARENT).filter(([, p]) => p === repair.category).map(([child]) => CATEGORY_IDS.indexOf(child as never))];
    const inSource = new Set(c.datasets.flatMap((d, i) => (repair.dataset(d) ? [i] : [])));
    let n = 0;
    for (const r of train) {
      if (!inSource.has(c.dataset[r]!) || labels[r * H + head] !== repair.label) continue;
      if (repair.supported(examples[c.example[r]!]!.text)) continue;
      for (const k of cats) labels[r * H + k] = -1;
      n++;
    }
    changed[name] = n;
  }
  return { corpus: { ...c, labels }, changed };
}
