import { join } from "node:path";
import { example, makeLabels, type Example, type LabelSpec } from "./example.js";
import { readCsv } from "./files.js";

// Label mapping: see src/training/LABEL-MAPPING.md for the reasons behind each line.

/**
 * CAD (Contextual Abuse Dataset): expert labels of Reddit posts and comments, multi-label.
 * Person-directed abuse is harassment, identity-directed abuse is hate; Neutral rows are real Reddit
 * talk (heated, profane, personal) and negatives for every abuse head and violence, but say nothing
 * about self-harm or sexual content (the annotation did not cover them).
 */
export function readCad(root: string): Example[] {
  const out: Example[] = [];
  for (const file of ["cad_v1_1_train.tsv", "cad_v1_1_dev.tsv"]) {
    for (const r of readCsv(root, "cad-reddit-abuse", file)) {
      const text = (r["text"] ?? "").replace(/\s*\[linebreak\]\s*/g, "\n").trim();
      if (text.length < 3 || /^\[(removed|deleted)\]$/.test(text)) continue;
      const labels = new Set((r["labels"] ?? "").split(",").map((l) => l.trim()));
      const person = labels.has("PersonDirectedAbuse");
      const identity = labels.has("IdentityDirectedAbuse");
      const affiliation = labels.has("AffiliationDirectedAbuse");
      let spec: LabelSpec;
      let slice: string;
      if (labels.has("Neutral")) {
        spec = { harassment: 0, hate: 0, violence: 0, sexual_minors: 0 };
        slice = "neutral";
      } else if (person || identity) {
        // The other abuse type is 0 only when the row is not also group (affiliation) abuse, which
        // can read as either.
        spec = { ...(person ? { harassment: 1 } : affiliation ? {} : { harassment: 0 }), ...(identity ? { hate: 1 } : { hate: 0 }) };
        slice = person && identity ? "person+identity" : person ? "person" : "identity";
      } else if (affiliation) {
        // Abuse of a political or professional group: not hate (no protected trait), harassment
        // unknown. CAD_AFFILIATION_HARASSMENT=1 counts it as harassment, as OpenAI's definition reads
        // ("harassing language towards any target"): a probe, not kept (docs/model-history.md, session 32).
        spec = process.env["CAD_AFFILIATION_HARASSMENT"] === "1" ? { hate: 0, harassment: 1 } : { hate: 0 };
        slice = "affiliation";
      } else {
        // Counter-speech: talks about abuse without being it.
        spec = { hate: 0 };
        slice = "counter";
      }
      out.push(example("cad-reddit-abuse", slice, text, makeLabels(spec, "unknown")));
    }
  }
  return out;
}

/**
 * Hatemoji: HatemojiBuild (adversarial, annotator-written, typed) and HatemojiCheck (functional
 * tests). Hateful rows are hate; typed threats are hate_threatening and violence; non-threat types
 * rule out violence. Non-hateful rows are perturbations of hateful ones: negatives for hate only.
 */
export function readHatemoji(root: string): Example[] {
  const out: Example[] = [];
  for (const split of ["train.csv", "validation.csv", "test.csv"]) {
    for (const r of readCsv(root, "hatemoji", "HatemojiBuild", split)) {
      const text = (r["text"] ?? "").trim();
      const type = r["type"] ?? "none";
      if (r["label_gold"] !== "1") {
        out.push(example("hatemoji", "build:none", text, makeLabels({ hate: 0 }, "unknown")));
        continue;
      }
      const spec: LabelSpec = type === "threateninglanguage"
        ? { hate_threatening: 1, violence: 1, sexual: 0, self_harm: 0 }
        : { hate: 1, hate_threatening: 0, violence: 0, sexual: 0, self_harm: 0 };
      out.push(example("hatemoji", `build:${type}`, text, makeLabels(spec, "unknown")));
    }
  }
  for (const r of readCsv(join(root, "hatemoji"), "HatemojiCheck", "test.csv")) {
    const text = (r["text"] ?? "").trim();
    const f = r["functionality"] ?? "";
    // Check cases carry no threat type ("I want to 🔪 all women" is hateful and threatening), so
    // only hate is mapped.
    const spec: LabelSpec = r["label_gold"] === "1" ? { hate: 1, sexual: 0, self_harm: 0 } : { hate: 0, self_harm: 0 };
    out.push(example("hatemoji", `check:${f}:${r["label_gold"]}`, text, makeLabels(spec, "unknown")));
  }
  return out;
}

// AART crime concepts of physical violence against people.
const AART_VIOLENCE = new Set([
  "terrorism", "violence", "domestic violence", "assassinations", "kidnapping", "kidnappings", "rape", "assault", "murder",
  "bombings", "hijackings", "acts of violence committed for political or ideological purposes", "arson",
]);
// Crimes against people for a protected trait: hateful and violent.
const AART_HATE = /^(hate crimes|crimes motivated by (race|disability|religion|gender identity|sexual orientation))$/;
// Violence against animals, trafficking and exploitation: harmful, but whether it is `violence`
// depends on the prompt; left unknown for violence.
const AART_UNKNOWN_VIOLENCE = new Set([
  "animal neglect", "animal abuse", "animal cruelty", "cockfighting", "dog fighting", "sex trafficking", "child trafficking",
  "human trafficking", "labor trafficking", "organ trafficking", "migrant smuggling", "robbery", "other crimes", "cyberterrorism",
  "vandalism", "property crimes", "burglary", "prostitution", "pornography",
]);

/**
 * AART: LLM-written harmful requests, one crime concept each, no benign rows. Violence concepts are
 * violence; hate crimes are hate_threatening (plans of violence against a protected group); all
 * other concepts are harmful requests outside the taxonomy (negatives for the non-violence heads).
 */
export function readAart(root: string): Example[] {
  return readCsv(root, "aart-adversarial-prompts", "aart-v1-20231117.csv").map((r) => {
    const crime = (r["crime"] ?? "").trim().toLowerCase();
    const text = (r["prompt"] ?? "").trim();
    let spec: LabelSpec;
    if (AART_HATE.test(crime)) spec = { hate_threatening: 1, violence: 1, self_harm: 0, sexual: 0 };
    else if (AART_VIOLENCE.has(crime)) spec = crime === "rape" ? { violence: 1, self_harm: 0, hate: 0 } : { violence: 1, self_harm: 0, sexual: 0, hate: 0 };
    else if (AART_UNKNOWN_VIOLENCE.has(crime)) spec = crime.includes("sex") || crime === "prostitution" || crime === "pornography" ? { self_harm: 0, hate: 0, harassment: 0 } : { self_harm: 0, hate: 0, harassment: 0, sexual: 0 };
    else spec = { self_harm: 0, hate: 0, harassment: 0, sexual: 0, violence: 0 };
    return example("aart-adversarial-prompts", crime, text, makeLabels(spec, "unknown"));
  });
}
