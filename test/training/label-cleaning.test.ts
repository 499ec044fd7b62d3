import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { CATEGORY_INDEX, example, makeLabels } from "../../src/training/datasets/example.js";
import { dropUnsupportedPositives } from "../../src/training/label-cleaning.js";
import { createPrng } from "../../src/training/prng.js";
import { trainMlp } from "../../src/training/train-mlp.js";

const spec = { buckets: 1 << 14, minN: 3, maxN: 5 };
const H = CATEGORY_IDS.length;
const harassment = CATEGORY_INDEX.harassment;
const threatening = CATEGORY_INDEX.harassment_threatening;
const heads = [harassment, threatening];

/**
 * Insults ("you zorp blag") are harassment and spoon sentences are not; 20 more spoon sentences,
 * no different from the others, carry a harassment label anyway, as a post labelled with its thread
 * as context can; 20 insults with "or else" are also threatening.
 */
function toyCorpus() {
  const rand = createPrng(9);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const insult = (): string => `you ${pick(["zorp", "blag", "snerk"])} ${pick(["zorp", "blag", "snerk"])} go away`;
  const examples = [];
  for (let i = 0; i < 300; i++) {
    examples.push(example("toy", "insult", `${insult()} ${i}`, makeLabels({ harassment: 1 }, "unknown")));
    examples.push(example("toy", "spoon", `put the ${pick(["spoon", "fork", "cup"])} on the plate ${i}`, makeLabels({ harassment: 0, harassment_threatening: 0 }, "unknown")));
  }
  for (let i = 0; i < 20; i++) {
    examples.push(example("toy", "context", `put the ${pick(["spoon", "fork", "cup"])} on the plate ${1000 + i}`, makeLabels({ harassment: 1 }, "unknown")));
    examples.push(example("toy", "threat", `${insult()} or else ${i}`, makeLabels({ harassment_threatening: 1 }, "unknown")));
  }
  return { corpus: buildCorpus(examples, { hashing: spec, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 }), examples };
}

describe("dropping positives the text does not support (label-cleaning.ts)", () => {
  const { corpus, examples } = toyCorpus();
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const cleaned = dropUnsupportedPositives(corpus, rows, heads, 4, undefined, (train, seed) => trainMlp(corpus, train, spec.buckets, { heads, seed, epochs: 3 }));
  const labelOf = (slice: string, category: number): number[] =>
    [...rows].filter((r) => examples[corpus.example[r]!]!.slice === slice).map((r) => cleaned.labels[r * H + category]!);

  it("makes some of the spoon sentences' harassment labels unknown and keeps every insult's", () => {
    const context = labelOf("context", harassment);
    // The bar is the average negative's probability, so only the unsupported positives scored no
    // higher than that go (5 of 20 with this seed); no insult does.
    expect(context.filter((l) => l === -1).length).toBeGreaterThanOrEqual(3);
    expect(labelOf("insult", harassment).every((l) => l === 1)).toBe(true);
    expect(cleaned.dropped["toy harassment"]).toBe(context.filter((l) => l === -1).length + labelOf("threat", harassment).filter((l) => l === -1).length);
  });

  it("touches no negative, and leaves the corpus's own labels as they were", () => {
    expect(labelOf("spoon", harassment).every((l) => l === 0)).toBe(true);
    expect([...rows].every((r) => corpus.labels[r * H + harassment] !== -1 || cleaned.labels[r * H + harassment] === -1)).toBe(true);
    expect([...rows].filter((r) => corpus.labels[r * H + harassment] === 1).length).toBe(300 + 20 + 20);
  });

  it("a kept threatening label keeps its parent positive", () => {
    const threat = [...rows].filter((r) => examples[corpus.example[r]!]!.slice === "threat");
    for (const r of threat) if (cleaned.labels[r * H + threatening] === 1) expect(cleaned.labels[r * H + harassment]).toBe(1);
    expect(threat.filter((r) => cleaned.labels[r * H + threatening] === 1).length).toBeGreaterThan(0);
  });

  it("the bar is the average out-of-fold probability of a negative, per head", () => {
    expect(cleaned.bars["harassment"]).toBeGreaterThan(0);
    expect(cleaned.bars["harassment"]).toBeLessThan(0.5);
  });
});
