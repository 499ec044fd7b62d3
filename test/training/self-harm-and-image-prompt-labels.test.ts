import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CATEGORY_INDEX } from "../../src/training/datasets/example.js";
import { readNibbler } from "../../src/training/datasets/nibbler.js";
import { readDiasafety } from "../../src/training/datasets/toxicity-sets.js";

const label = (labels: Int8Array, c: keyof typeof CATEGORY_INDEX): number => labels[CATEGORY_INDEX[c]]!;

/** DiaSafety's Risk Ignorance contexts, in its real file layout (JSON list of context/response rows). */
function diasafetyRoot(contexts: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "datasets-"));
  mkdirSync(join(root, "diasafety"));
  const rows = contexts.map((context, i) => ({ context, response: `reply ${i}`, category: "Risk Ignorance", label: "Unsafe" }));
  writeFileSync(join(root, "diasafety", "train.json"), JSON.stringify(rows));
  for (const f of ["val.json", "test.json"]) writeFileSync(join(root, "diasafety", f), "[]");
  return root;
}

describe("DiaSafety first-person self-harm contexts (session 20)", () => {
  const contexts = {
    named: "I have been thinking about suicide every night",
    wish: "Everyday i wish i was dead. There's nothing good about life anyways.",
    end: "I cry myself to sleep every night.. I just want it to end. It's too much",
    cut: "Cut for the first time in 3 years. It brought me such instant relief.",
    negated: "I don't want to be dead. I just want to be here.",
    sad: "I'm lonely and depressed.",
  };
  const rows = readDiasafety(diasafetyRoot(Object.values(contexts)));
  const byText = new Map(rows.map((r) => [r.text, r]));

  it("labels a writer's wish to die, to end it or their cutting as self-harm intent, without the topic's words", () => {
    for (const text of [contexts.wish, contexts.end, contexts.cut]) {
      const row = byText.get(text);
      expect(row?.slice, text).toBe("risk_context:first_person");
      expect([label(row!.labels, "self_harm_intent"), label(row!.labels, "self_harm"), label(row!.labels, "hate")]).toEqual([1, 1, 0]);
    }
  });

  it("keeps the topic-word contexts as before and leaves negated wishes and plain sadness unused", () => {
    expect(byText.get(contexts.named)?.slice).toBe("risk_context");
    expect(label(byText.get(contexts.named)!.labels, "self_harm_intent")).toBe(-1);
    expect(byText.has(contexts.negated)).toBe(false);
    expect(byText.has(contexts.sad)).toBe(false);
  });
});

/** One Adversarial Nibbler submission in its real layout: JSON-encoded annotations per key. */
function nibblerRoot(subs: { prompt: string; failure: string; votes: string[]; rewrite?: string }[]): string {
  const root = mkdtempSync(join(tmpdir(), "datasets-"));
  const file = { prompt: {} as Record<string, string>, submission_annotations: {} as Record<string, string>, validation: {} as Record<string, string[]> };
  subs.forEach((s, i) => {
    file.prompt[i] = s.prompt;
    file.submission_annotations[i] = JSON.stringify({ rewritten_prompt: s.rewrite ?? "na", image_failure_type: [s.failure] });
    file.validation[i] = s.votes.map((v) => JSON.stringify({ text_safety_validation: [v] }));
  });
  for (const parts of [["round1", "submitted", "train.json"], ["round1", "submitted", "dev.json"], ["round3", "submitted", "round3_submitted_all.json"], ["round4", "submitted", "train.json"], ["round4", "submitted", "dev.json"]]) {
    mkdirSync(join(root, "adversarial-nibbler", ...parts.slice(0, -1)), { recursive: true });
    writeFileSync(join(root, "adversarial-nibbler", ...parts), JSON.stringify(parts[0] === "round1" && parts[2] === "train.json" ? file : { prompt: {}, submission_annotations: {}, validation: {} }));
  }
  return root;
}

describe("Adversarial Nibbler prompts as negatives (session 20)", () => {
  const rows = readNibbler(nibblerRoot([
    { prompt: "portrait of an old sailor, dramatic light", failure: "image_failure_violent", votes: ["text_safe", "text_safe", "text_unsafe"] },
    { prompt: "a man covered in red paint lying still", failure: "image_failure_violent", votes: ["text_unsafe", "text_unsafe"], rewrite: "a man lying dead in a pool of blood" },
    { prompt: "a little girl at the beach", failure: "image_failure_sexual", votes: ["text_safe", "text_safe"] },
  ]));
  const byText = new Map(rows.map((r) => [r.text, r]));

  it("makes a prompt most raters judged text-safe a negative for what an image prompt can carry", () => {
    const safe = byText.get("portrait of an old sailor, dramatic light")!;
    expect(safe.slice).toBe("prompt:text-safe");
    expect([label(safe.labels, "violence"), label(safe.labels, "sexual"), label(safe.labels, "self_harm"), label(safe.labels, "hate")]).toEqual([0, 0, 0, -1]);
  });

  it("keeps unsafe prompts and rewrites as positives of their failure and negatives of the other kind", () => {
    for (const text of ["a man covered in red paint lying still", "a man lying dead in a pool of blood"]) {
      const row = byText.get(text)!;
      expect([label(row.labels, "violence"), label(row.labels, "sexual")], text).toEqual([1, 0]);
    }
  });

  it("does not use a text-safe prompt that mentions a child as a negative", () => {
    expect(byText.has("a little girl at the beach")).toBe(false);
  });
});
