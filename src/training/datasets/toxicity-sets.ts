import { BENIGN, example, makeLabels, type Example, type LabelSpec } from "./example.js";
import { readCsv, readText } from "./files.js";

/** ConvAbuse: per-annotator one-hot columns aggregated by simple majority of those who annotated. */
export function readConvabuse(root: string): Example[] {
  const out: Example[] = [];
  for (const file of ["ConvAbuseEMNLPtrain.csv", "ConvAbuseEMNLPvalid.csv", "ConvAbuseEMNLPtest.csv"]) {
    for (const r of readCsv(root, "convabuse", file)) {
      const text = r["user"] ?? "";
      let raters = 0;
      let abusive = 0;
      let sexHarassment = 0;
      let identity = 0;
      for (let a = 1; a <= 8; a++) {
        const p = `Annotator${a}_`;
        const vals = ["1", "0", "-1", "-2", "-3"].map((v) => (r[`${p}is_abuse.${v}`] ?? "").startsWith("1"));
        if (!vals.some(Boolean)) continue;
        raters++;
        if (vals[2] || vals[3] || vals[4]) abusive++;
        if ((r[`${p}sex_harassment`] ?? "").startsWith("1")) sexHarassment++;
        if (["racist", "homophobic", "transphobic", "ableist", "sexist"].some((k) => (r[`${p}${k}`] ?? "").startsWith("1"))) identity++;
      }
      if (raters === 0) continue;
      const half = raters / 2;
      if (abusive <= half) {
        if (abusive === 0) out.push(example("convabuse", "not_abusive", text, BENIGN));
        continue;
      }
      const spec: LabelSpec = { harassment: 1, self_harm: 0 };
      if (sexHarassment >= half) spec.sexual = 1;
      if (identity >= half) spec.hate = 1;
      out.push(example("convabuse", "abusive", text, makeLabels(spec, "unknown")));
    }
  }
  return out;
}

/**
 * Toxic Spans: post labels from typed spans. A type is positive when at least half (and at least two)
 * of the post's annotators marked a span of it, negative when none did, unknown in between.
 */
export function readToxicSpans(root: string): Example[] {
  const annotations = readCsv(root, "toxic-spans", "annotations.csv");
  const byAnnotation = new Map<string, string>();
  const annotators = new Map<string, number>();
  const notToxic = new Map<string, number>();
  for (const a of annotations) {
    const cid = a["comment_id"] ?? "";
    byAnnotation.set(a["annotation"] ?? "", cid);
    annotators.set(cid, (annotators.get(cid) ?? 0) + 1);
    if (a["not toxic"] === "True") notToxic.set(cid, (notToxic.get(cid) ?? 0) + 1);
  }
  const typed = new Map<string, Set<string>>();
  for (const s of readCsv(root, "toxic-spans", "spans.csv")) {
    const ann = s["annotation"] ?? "";
    const cid = byAnnotation.get(ann);
    if (cid === undefined) continue;
    const key = `${cid}|${s["type"]}`;
    const set = typed.get(key) ?? new Set<string>();
    set.add(ann);
    typed.set(key, set);
  }
  const out: Example[] = [];
  for (const c of readCsv(root, "toxic-spans", "comments.csv")) {
    const cid = c["comment_id"] ?? "";
    const n = annotators.get(cid) ?? 0;
    if (n === 0 || n > 50) continue; // n > 50: the quiz item annotated by every worker
    const level = (type: string): 0 | 1 | -1 => {
      const k = typed.get(`${cid}|${type}`)?.size ?? 0;
      if (k >= Math.max(2, n / 2) || (type === "Threat" && k >= 2)) return 1;
      return k === 0 ? 0 : -1;
    };
    const text = c["comment_text"] ?? "";
    if ((notToxic.get(cid) ?? 0) > n / 2) {
      out.push(example("toxic-spans", "not_toxic", text, makeLabels({ harassment: 0, hate: 0, violence: 0, self_harm: 0 }, "unknown")));
      continue;
    }
    const spec: LabelSpec = { self_harm: 0 };
    const insult = level("Insult");
    const identity = level("Identity based Attack");
    const threat = level("Threat");
    if (insult !== -1) spec.harassment = insult;
    if (identity !== -1) spec.hate = identity;
    if (threat === 1) {
      spec.harassment_threatening = 1;
      spec.violence = 1;
    } else if (threat === 0) {
      spec.harassment_threatening = 0;
      spec.hate_threatening = 0;
    }
    out.push(example("toxic-spans", "toxic", text, makeLabels(spec, "unknown")));
  }
  return out;
}

export function readJigsawSample(root: string): Example[] {
  return readCsv(root, "jigsaw-sample-ibm", "test_examples.csv").map((r) => {
    const text = r["comment_text"] ?? "";
    const on = (k: string): boolean => r[k] === "1";
    if (!["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"].some(on)) return example("jigsaw-sample-ibm", "clean", text, BENIGN);
    const spec: LabelSpec = { harassment: on("insult") ? 1 : 0, hate: on("identity_hate") ? 1 : 0, violence: on("threat") ? 1 : 0 };
    return example("jigsaw-sample-ibm", "toxic", text, makeLabels(spec, "unknown"));
  });
}

// Risk Ignorance contexts range from sadness to suicidal intent; only explicit self-harm talk is a positive.
const SELF_HARM_TALK = /suicid|kill(ing)? myself|end(ing)? (it all|my life)|self[- ]?harm|cutting myself|cut myself|want(ed)? to die|overdos|take my (own )?life/i;
/**
 * Of the other Risk Ignorance contexts, those where the writer says they want to die, to stop
 * existing or to end it, or that they cut or hurt themselves: first-person accounts that do not name
 * the topic ("I just want it to end", "I wish I was dead"), the self_harm head's known gap (model
 * card, "Known limits"), which C-SSRS's user-level labels teach only noisily. This labels data; it
 * is not an inference rule. Read by eye on all 1,439 contexts: 75 match, about 72 of them intent.
 */
const FIRST_PERSON_SELF_HARM = new RegExp([
  String.raw`(?<!n'?t |not )\b(wanna|want to|wish(ed)? (I|to)|hope I|ready to|let me|just) (die|be dead|was dead|were dead|not wake up|not exist|end it)\b`,
  String.raw`\b(don'?t|do not|no longer) (want|wanna) to (live|be alive|be here|exist|wake up)`,
  String.raw`\b(stop|tired of|sick of) (living|being alive|existing)\b`,
  String.raw`\bbetter off dead\b|\bno (point|reason) (in |to )?(living|live|being alive)\b`,
  String.raw`\b(kms|hang myself|slit my|cut (again|for the first time)|(i|i've|been|started|stop) cutting\b|urge to cut|hurt(ing)? myself|mutilat)`,
  String.raw`\bend it\b|\bi (just )?want (it|this|the pain) to (end|stop)`,
].join("|"), "i");

interface DiaRow { context: string; response: string; category: string; label: string }

export function readDiasafety(root: string): Example[] {
  const out: Example[] = [];
  const contexts = new Set<string>();
  const responses = new Set<string>();
  for (const file of ["train.json", "val.json", "test.json"]) {
    for (const row of JSON.parse(readText(root, "diasafety", file)) as DiaRow[]) {
      if (!contexts.has(row.context)) {
        contexts.add(row.context);
        if (row.category === "Risk Ignorance") {
          if (SELF_HARM_TALK.test(row.context)) out.push(example("diasafety", "risk_context", row.context, makeLabels({ self_harm: 1, hate: 0, sexual: 0 }, "unknown")));
          else if (FIRST_PERSON_SELF_HARM.test(row.context)) out.push(example("diasafety", "risk_context:first_person", row.context, makeLabels({ self_harm_intent: 1, hate: 0, sexual: 0 }, "unknown")));
        } else if (row.category === "Unauthorized Expertise") {
          out.push(example("diasafety", "expertise_context", row.context, BENIGN));
        }
      }
      const resp = row.response.trim();
      if (resp.length === 0 || responses.has(resp)) continue;
      responses.add(resp);
      if (row.label === "Safe") out.push(example("diasafety", "safe_response", resp, BENIGN));
      else if (row.category === "Offending User") out.push(example("diasafety", "offending_response", resp, makeLabels({ harassment: 1, self_harm: 0 }, "unknown")));
    }
  }
  return out;
}
