import { BENIGN, example, type Example } from "./example.js";
import { createPrng } from "../prng.js";

/**
 * Benign text-to-image prompts written by the project, as contrast for Adversarial Nibbler. Nibbler's
 * sexual positives are image prompts (its labels describe the generated image) and no public set here
 * holds benign ones, so the sexual head learned the style itself: "Beautiful portrait of an elderly
 * man with a beard, studio lighting" scored 0.91. These rows show people, animals and places in the
 * same style doing ordinary things, fully dressed, so the head has to find what makes a prompt sexual.
 *
 * Written from general knowledge of how image prompts are phrased, not from any dataset's rows. No
 * child or teen subjects (sexual_minors is rule-based and those words stay out of the sexual class's
 * contrast), no swimwear, underwear, beds or bodies: those are where Nibbler's euphemisms live, and a
 * benign row there would teach the head to miss them. Deterministic: a seeded choice of combinations.
 *
 * Not wired into datasets/index.ts: trained as benign look-alikes (session 9) it cut the sexual head's
 * false positives on hand-written image prompts, but the retrained model lost held-out figures
 * elsewhere and hand-written self-harm statements (docs/model-history.md, "Session 9"). To try again, add
 * it to READERS and isLookalike.
 */
export const PROJECT_IMAGE_PROMPTS = "project-image-prompts";

const PEOPLE = [
  "a young woman", "an elderly man", "an old woman", "a middle-aged man", "a woman", "a man", "two friends",
  "a couple", "a family of four", "a grandmother", "a bride and groom", "a fashion model", "a ballet dancer",
  "a nurse", "a chef", "a firefighter", "a farmer", "a fisherman", "a street musician", "a businesswoman",
  "an astronaut", "a knight in shining armour", "a female pilot", "a jazz singer", "a shopkeeper",
];
const OTHERS = [
  "a golden retriever", "a tabby cat", "a white horse", "a red fox", "an owl", "a lighthouse", "a mountain village",
  "a vintage car", "a sailboat", "a bowl of ramen", "a cup of coffee", "a steam train", "a castle", "a hot air balloon",
];
const DOING = [
  "smiling at the camera", "reading a book", "walking in the rain", "sitting on a park bench", "laughing with friends",
  "holding an umbrella", "looking out of a window", "riding a bicycle", "cooking dinner", "playing the guitar",
  "drinking tea", "waiting for a bus", "painting on a canvas", "tending a garden", "dancing at a wedding",
  "hiking up a hill", "feeding pigeons", "writing in a notebook", "carrying groceries", "waving goodbye",
];
const WEARING = [
  "wearing a red dress", "in a summer dress", "in a business suit", "in a winter coat", "in a wedding dress",
  "in a knitted sweater", "in a leather jacket", "in a raincoat", "in a floral blouse", "in traditional clothing",
  "in a cardigan", "in a tuxedo", "wearing a wide-brimmed hat", "in denim overalls",
];
const WHERE = [
  "at sunset", "in a cosy cafe", "on a busy street", "in a pine forest", "in Paris", "in a photo studio", "at night",
  "in the snow", "in a library", "by the lake", "in a sunflower field", "on a rooftop", "in a market", "at the harbour",
];
const STYLES = [
  "photo", "portrait", "oil painting", "watercolour painting", "digital art", "pencil sketch", "close-up photo",
  "black and white photograph", "illustration", "3d render",
];
const FINISH = [
  "cinematic lighting", "85mm", "high detail", "4k", "studio lighting", "soft focus", "golden hour", "trending on artstation",
  "natural light", "highly detailed", "award winning photography", "bokeh", "anime style", "film grain",
];

type Pick = <T>(items: readonly T[]) => T;

/** Prompt shapes people type: "style of subject ...", "subject ..., finish", requests to draw or generate. */
const SHAPES: readonly ((pick: Pick) => string)[] = [
  (p) => `${p(STYLES)} of ${p(PEOPLE)} ${p(DOING)} ${p(WHERE)}, ${p(FINISH)}`,
  (p) => `${p(PEOPLE)} ${p(WEARING)} ${p(DOING)}, ${p(FINISH)}`,
  (p) => `Generate an image of ${p(PEOPLE)} ${p(WEARING)} ${p(WHERE)}`,
  (p) => `Draw ${p(PEOPLE)} ${p(DOING)}, ${p(STYLES)}, ${p(FINISH)}`,
  (p) => `${p(STYLES)} of ${p(OTHERS)} ${p(WHERE)}, ${p(FINISH)}, ${p(FINISH)}`,
  (p) => `beautiful ${p(STYLES)} of ${p(PEOPLE)} ${p(WEARING)}, ${p(FINISH)}`,
  (p) => `${p(PEOPLE)} and ${p(OTHERS)} ${p(WHERE)}, ${p(STYLES)}`,
  (p) => `a picture of ${p(PEOPLE)} ${p(DOING)} ${p(WHERE)}`,
];

/** How many prompts: about half as many as Nibbler's sexual rows, trained at the look-alike weight. */
const ROWS = 600;

/** Every row of the set, all benign, in a fixed order (seeded, so the same code writes the same rows). */
export function writeImagePrompts(seed = 20261126): Example[] {
  const rand = createPrng(seed);
  const pick: Pick = (items) => items[Math.floor(rand() * items.length)]!;
  const out: Example[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < ROWS && i < ROWS * 4; i++) {
    const shape = i % SHAPES.length;
    const text = SHAPES[shape]!(pick);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(example(PROJECT_IMAGE_PROMPTS, `shape-${shape}`, text.charAt(0).toUpperCase() + text.slice(1), BENIGN));
  }
  return out;
}

/** Reader signature of datasets/index.ts; the set is written, not read, so `root` is unused. */
export function readImagePrompts(_root: string): Example[] {
  return writeImagePrompts();
}
