import { readdirSync } from "node:fs";
import { join } from "node:path";
import { BENIGN, example, makeLabels, type Example } from "./example.js";
import { decodeHtmlEntities, readCsv, readTarGz, readText } from "./files.js";

// Label mapping: see src/training/LABEL-MAPPING.md for the reasons behind each line.

export function readDavidson(root: string): Example[] {
  return readCsv(root, "davidson-hate-offensive", "labeled_data.csv").map((r) => {
    const text = decodeHtmlEntities(r["tweet"] ?? "");
    const cls = r["class"];
    if (cls === "0") return example("davidson-hate-offensive", "hate", text, makeLabels({ hate: 1 }, "unknown"));
    if (cls === "1") return example("davidson-hate-offensive", "offensive", text, makeLabels({ hate: 0, self_harm: 0 }, "unknown"));
    return example("davidson-hate-offensive", "neither", text, BENIGN);
  });
}

const HATECHECK_BENIGN = new Set(["counter_quote_nh", "counter_ref_nh", "ident_neutral_nh", "ident_pos_nh", "negate_neg_nh", "slur_homonym_nh", "slur_reclaimed_nh"]);

export function readHatecheck(root: string): Example[] {
  return readCsv(root, "hatecheck", "test_suite_cases.csv").map((r) => {
    const f = r["functionality"] ?? "";
    const text = r["test_case"] ?? "";
    if (r["label_gold"] === "hateful") {
      const threat = f === "threat_dir_h" || f === "threat_norm_h";
      return example("hatecheck", f, text, makeLabels(threat ? { hate_threatening: 1, violence: 1, sexual: 0, self_harm: 0 } : { hate: 1, hate_threatening: 0, violence: 0, sexual: 0, self_harm: 0 }, "unknown"));
    }
    if (HATECHECK_BENIGN.has(f)) return example("hatecheck", f, text, BENIGN);
    // profanity_nh, target_*_nh: not hate, but may still be abuse of a person or thing.
    return example("hatecheck", f, text, makeLabels({ hate: 0, self_harm: 0, sexual_minors: 0 }, "unknown"));
  });
}

export function readEdos(root: string): Example[] {
  return readCsv(root, "edos", "edos_labelled_aggregated.csv").map((r) => {
    const text = (r["text"] ?? "").replace(/\[(USER|URL)\]/g, "");
    if (r["label_sexist"] !== "sexist") return example("edos", "not_sexist", text, makeLabels({ hate: 0 }, "unknown"));
    const vector = r["label_vector"] ?? "";
    const cat = r["label_category"] ?? "";
    if (cat.startsWith("1.")) return example("edos", "threat", text, makeLabels({ hate_threatening: 1, violence: 1 }, "unknown"));
    const personal = vector.startsWith("2.2") || vector.startsWith("3.1");
    return example("edos", "sexist", text, makeLabels(personal ? { hate: 1, harassment: 1, hate_threatening: 0, violence: 0 } : { hate: 1, hate_threatening: 0, violence: 0 }, "unknown"));
  });
}

export function readGuestMisogyny(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "guest-misogyny", "final_labels.csv")) {
    const text = r["body"] ?? "";
    if (text.trim().length < 3 || /^\[(removed|deleted)\]$/.test(text.trim())) continue;
    const misogynistic = r["level_1"] === "Misogynistic";
    const l2 = r["level_2"] ?? "";
    const l3 = r["level_3"] ?? "";
    const spec: Record<string, 0 | 1> = { hate: misogynistic ? 1 : 0 };
    if (l2.endsWith("personal_attack")) spec["harassment"] = 1;
    if (l3.startsWith("Threatening")) {
      spec["violence"] = 1;
      if (misogynistic) spec["hate_threatening"] = 1;
    }
    const benign = !misogynistic && l2 === "None_of_the_categories";
    out.push(example("guest-misogyny", misogynistic ? "misogynistic" : l2, text, benign ? BENIGN : makeLabels(spec, "unknown")));
  }
  return out;
}

/** ToxiGen human seed statements: split the prompt files on their "\n-" separators and de-duplicate. */
export function readToxigen(root: string): Example[] {
  const dir = join(root, "toxigen-seeds", "prompts");
  const seen = new Set<string>();
  const out: Example[] = [];
  for (const file of readdirSync(dir).sort()) {
    const hate = file.startsWith("hate_");
    for (const line of readText(dir, file).split("\n")) {
      for (const part of line.split("\\n")) {
        const text = part.replace(/^\s*-\s*/, "").trim();
        if (text.length < 8 || seen.has(text)) continue;
        seen.add(text);
        out.push(example("toxigen-seeds", hate ? "hate" : "neutral", text, hate ? makeLabels({ hate: 1, hate_threatening: 0, violence: 0, sexual: 0, self_harm: 0 }, "unknown") : BENIGN));
      }
    }
  }
  return out;
}

export function readStormfront(root: string): Example[] {
  const files = readTarGz(join(root, "stormfront-hate", "all_files.tar.gz"));
  const out: Example[] = [];
  for (const r of readCsv(root, "stormfront-hate", "annotations_metadata.csv")) {
    const label = r["label"];
    if (label !== "hate" && label !== "noHate") continue;
    const text = files.get(`all_files/${r["file_id"]}.txt`);
    if (!text || text.trim().length < 3) continue;
    // noHate sentences come from the same forum: a weak negative for hate only.
    out.push(example("stormfront-hate", label, text, makeLabels({ hate: label === "hate" ? 1 : 0, self_harm: 0 }, "unknown")));
  }
  return out;
}

export function readImplicitHate(root: string): Example[] {
  const threatening = new Set<string>();
  for (const r of readCsv(root, "implicit-hate", "implicit_hate_v1_stg2_posts.tsv")) {
    if (r["implicit_class"] === "threatening" || r["extra_implicit_class"] === "threatening") threatening.add((r["post"] ?? "").trim());
  }
  return readCsv(root, "implicit-hate", "implicit_hate_v1_stg1_posts.tsv").map((r) => {
    const text = (r["post"] ?? "").trim();
    const cls = r["class"] ?? "";
    // Stage 2 typed every implicit post, so an implicit post not typed threatening is no threat;
    // not_hate rows (mostly political and immigration talk) are negatives for violence too.
    if (cls === "not_hate") return example("implicit-hate", cls, text, makeLabels({ hate: 0, self_harm: 0, violence: 0 }, "unknown"));
    if (threatening.has(text)) return example("implicit-hate", "threatening", text, makeLabels({ hate_threatening: 1, violence: 1 }, "unknown"));
    return example("implicit-hate", cls, text, makeLabels(cls === "implicit_hate" ? { hate: 1, hate_threatening: 0, violence: 0 } : { hate: 1 }, "unknown"));
  });
}

export function readHatexplain(root: string): Example[] {
  return readCsv(root, "hatexplain-magpie", "preprocessed.csv").map((r) => {
    const text = (r["text"] ?? "").replace(/<(user|url)>/g, "").trim();
    const label = r["label"];
    if (label === "2") return example("hatexplain-magpie", "hatespeech", text, makeLabels({ hate: 1 }, "unknown"));
    if (label === "1") return example("hatexplain-magpie", "offensive", text, makeLabels({ hate: 0, self_harm: 0 }, "unknown"));
    return example("hatexplain-magpie", "normal", text, BENIGN);
  });
}

export function readMetooma(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "metooma-magpie", "preprocessed.csv")) {
    const text = (r["text"] ?? "").trim();
    if (text.length < 3) continue;
    // Directed and generalised hate were merged upstream, so positives cannot be split into
    // hate vs harassment: they are skipped. Negatives discuss sexual assault without being sexual content.
    if (r["hate_speech_label"] === "1") continue;
    out.push(example("metooma-magpie", "not_hate", text, BENIGN));
  }
  return out;
}
