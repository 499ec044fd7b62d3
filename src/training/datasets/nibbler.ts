import { example, makeLabels, type Example, type LabelSpec } from "./example.js";
import { readText } from "./files.js";

// Prompts labelled sexual that mention young people are neither clean adult-sexual positives nor
// clean sexual_minors examples (dataset INDEX note): they are dropped.
const MINOR_WORDS = /\b(child|children|kid|kids|girl|girls|boy|boys|teen|teens|teenage|young|youth|school|schoolgirl|minor|little|baby|toddler|loli|daughter|son)\b/i;

interface NibblerFile {
  prompt: Record<string, string>;
  submission_annotations: Record<string, string>;
  validation: Record<string, string[]>;
}

interface Submission { rewritten_prompt?: string; image_failure_type?: unknown }
interface Validation { text_safety_validation?: unknown }

const FILES = [["round1", "submitted", "train.json"], ["round1", "submitted", "dev.json"], ["round3", "submitted", "round3_submitted_all.json"], ["round4", "submitted", "train.json"], ["round4", "submitted", "dev.json"]];

function parse<T>(s: string | undefined): T | undefined {
  try {
    return s ? (JSON.parse(s) as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adversarial Nibbler: labels describe the generated image. The typed prompt is used only when most
 * raters judged the text itself unsafe; the submitter's rewritten prompt (an explicit description of
 * the harm) is used as a positive on its own. A typed prompt most raters judged text-safe is a
 * negative for the categories an image prompt can carry: without these, words such as "portrait"
 * and "blood" had only positives here and everyday prompts drew violence (docs/model-history.md,
 * sessions 19 and 20). A failure of one kind is a negative for the other.
 */
export function readNibbler(root: string): Example[] {
  const out: Example[] = [];
  const seen = new Set<string>();
  for (const parts of FILES) {
    const data = JSON.parse(readText(root, "adversarial-nibbler", ...parts)) as NibblerFile;
    for (const key of Object.keys(data.prompt)) {
      const prompt = (data.prompt[key] ?? "").trim();
      const sub = parse<Submission>(data.submission_annotations[key]);
      const types = Array.isArray(sub?.image_failure_type) ? (sub.image_failure_type as unknown[]).map(String) : [];
      const sexual = types.includes("image_failure_sexual");
      const violent = types.includes("image_failure_violent");
      if (!sexual && !violent) continue;
      let unsafe = 0;
      let safe = 0;
      for (const v of data.validation[key] ?? []) {
        const votes = parse<Validation>(v)?.text_safety_validation;
        if (Array.isArray(votes) && votes.includes("text_unsafe")) unsafe++;
        else if (Array.isArray(votes) && votes.includes("text_safe")) safe++;
      }
      const rewrite = (sub?.rewritten_prompt ?? "").trim();
      const spec: LabelSpec = { self_harm: 0, sexual: sexual ? 1 : 0, violence: violent ? 1 : 0 };
      const candidates: [string, string][] = [];
      if (unsafe > safe) candidates.push(["prompt", prompt]);
      else if (safe > unsafe && !seen.has(prompt) && !MINOR_WORDS.test(prompt)) {
        seen.add(prompt);
        out.push(example("adversarial-nibbler", "prompt:text-safe", prompt, makeLabels({ self_harm: 0, sexual: 0, violence: 0 }, "unknown")));
      }
      if (rewrite.length >= 12 && rewrite.toLowerCase() !== prompt.toLowerCase()) candidates.push(["rewrite", rewrite]);
      for (const [slice, text] of candidates) {
        if (sexual && (MINOR_WORDS.test(prompt) || MINOR_WORDS.test(rewrite))) continue;
        if (seen.has(text)) continue;
        seen.add(text);
        out.push(example("adversarial-nibbler", `${slice}:${sexual ? "sexual" : "violent"}`, text, makeLabels(spec, "unknown")));
      }
    }
  }
  return out;
}
