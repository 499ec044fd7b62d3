import { describe, expect, it } from "vitest";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { IDENTITY_MENTION_SLICE, identityMentionNegatives } from "../../src/training/identity-mention-negatives.js";

const row = (text: string, dataset: string, labels: Parameters<typeof makeLabels>[0]): Example => ({ text, dataset, slice: "posts", labels: makeLabels(labels, "unknown") });

describe("identityMentionNegatives (a probe, off by default)", () => {
  const examples = [
    row("The women in my team are great.", "chat", { hate: 0, harassment: 0 }),
    row("women are vermin", "chat", { hate: 1 }), // hateful: gives nothing
    row("Muslims pray five times a day", "chat", { harassment: 0 }), // hate not known to be 0: nothing
    row("Refugees welcome here", "other", { hate: 0 }),
  ];

  it("takes group names from rows whose hate label is a known 0, with one neighbour each side, in their row's dataset", () => {
    const out = identityMentionNegatives(examples, { perDataset: 10 });
    expect(out.map((e) => `${e.dataset}:${e.text}`).sort()).toEqual(["chat:the women", "chat:women", "chat:women in", "other:refugees", "other:refugees welcome"]);
    expect(out.every((e) => e.slice === IDENTITY_MENTION_SLICE)).toBe(true);
    expect(Array.from(out.find((e) => e.text === "women")!.labels)).toEqual(Array.from(examples[0]!.labels));
  });

  it("takes the name alone when asked", () => {
    expect(identityMentionNegatives(examples, { perDataset: 10, withNeighbours: false }).map((e) => e.text)).toEqual(["women", "refugees"]);
  });
});
