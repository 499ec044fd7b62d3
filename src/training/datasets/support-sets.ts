import { BENIGN, example, makeLabels, type Example } from "./example.js";
import { parsePythonStringList, readCsv, readText } from "./files.js";

export function readClinc(root: string): Example[] {
  const data = JSON.parse(readText(root, "clinc150", "data_full.json")) as Record<string, [string, string][]>;
  const out: Example[] = [];
  for (const split of Object.keys(data).sort()) for (const [text] of data[split] ?? []) out.push(example("clinc150", split, text, BENIGN));
  for (const line of readText(root, "clinc150", "all_wiki_sents.txt").split("\n")) {
    if (line.trim().length >= 20) out.push(example("clinc150", "wiki", line.trim(), BENIGN));
  }
  return out;
}

export function readBanking(root: string): Example[] {
  return ["train.csv", "test.csv"].flatMap((f) => readCsv(root, "banking77", f).map((r) => example("banking77", "query", r["text"] ?? "", BENIGN)));
}

/** Counsel Chat: help-seeking questions (self-harm topics positive) and therapists' supportive answers (negatives). */
export function readCounselChat(root: string): Example[] {
  const out: Example[] = [];
  const questions = new Set<string>();
  const answers = new Set<string>();
  for (const r of readCsv(root, "counsel-chat", "20200325_counsel_chat.csv")) {
    const topic = r["topic"] ?? "";
    const q = `${r["questionTitle"] ?? ""}. ${r["questionText"] ?? ""}`.trim();
    if (!questions.has(r["questionID"] ?? "")) {
      questions.add(r["questionID"] ?? "");
      if (topic === "self-harm" || topic === "eating-disorders") out.push(example("counsel-chat", `question:${topic}`, q, makeLabels({ self_harm: 1, hate: 0, sexual: 0, violence: 0, harassment: 0 }, "unknown")));
      else if (topic === "depression" || topic === "domestic-violence" || topic === "trauma") out.push(example("counsel-chat", `question:${topic}`, q, makeLabels({ hate: 0, sexual: 0, harassment: 0 }, "unknown")));
      else out.push(example("counsel-chat", `question:${topic}`, q, BENIGN));
    }
    const a = (r["answerText"] ?? "").trim();
    if (a.length > 40 && !answers.has(a)) {
      answers.add(a);
      out.push(example("counsel-chat", "answer", a, BENIGN));
    }
  }
  return out;
}

/**
 * Reddit C-SSRS: labels are per user, copied onto each post (noisy). Ideation, Behavior and Attempt
 * users' posts are self-harm intent positives; Supportive users' posts are negatives for self-harm
 * (they talk about suicide to help others: prevention talk is not self-harm content); Indicator users are skipped as ambiguous.
 */
export function readCssrs(root: string): Example[] {
  const out: Example[] = [];
  for (const r of readCsv(root, "reddit-cssrs-suicide", "500_Reddit_users_posts_labels.csv")) {
    const label = r["Label"] ?? "";
    if (label === "Indicator") continue;
    const posts = parsePythonStringList(r["Post"] ?? "") ?? [];
    for (const post of posts) {
      const text = post.trim();
      if (text.length < 40) continue;
      const labels = label === "Supportive"
        ? makeLabels({ self_harm: 0, hate: 0, sexual: 0, harassment: 0, violence: 0 }, "unknown")
        : makeLabels({ self_harm_intent: 1, hate: 0, sexual: 0, harassment: 0, violence: 0 }, "unknown");
      out.push(example("reddit-cssrs-suicide", label, text, labels));
    }
  }
  return out;
}
