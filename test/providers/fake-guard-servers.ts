import type { Behaviour } from "./fake-openai-server.js";
import { completion } from "./fake-openai-server.js";

/**
 * Answers of the guard-model servers the text providers talk to, in their real wire formats,
 * for the scripted fake in fake-openai-server.ts (a real HTTP server).
 */

/** OpenAI's moderation API: POST /v1/moderations; every category given a score (0 unless named), flagged at 0.5. */
export function openAiModeration(scores: Record<string, number>, options: { applied?: Record<string, string[]>; model?: string } = {}): Behaviour {
  const names = [
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent", "self-harm",
    "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic",
  ];
  return (_req, res) => {
    const score = (n: string) => scores[n] ?? 0;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "modr-fake",
      model: options.model ?? "omni-moderation-2024-09-26",
      results: [{
        flagged: names.some((n) => score(n) >= 0.5),
        categories: Object.fromEntries(names.map((n) => [n, score(n) >= 0.5])),
        category_scores: Object.fromEntries(names.map((n) => [n, score(n)])),
        category_applied_input_types: Object.fromEntries(names.map((n) => [n, options.applied?.[n] ?? ["text"]])),
      }],
    }));
  };
}

/** A vLLM/Ollama chat completion carrying Llama Guard's answer: "safe", or "unsafe" and its codes. */
export function llamaGuard(codes: string[] = [], model = "meta-llama/Llama-Guard-3-8B"): Behaviour {
  return completion(codes.length === 0 ? "safe" : `unsafe\n${codes.join(",")}`, { model });
}

/**
 * A chat completion for ShieldGemma asked for one token with logprobs: the first token's
 * top_logprobs hold "Yes" and "No" with P(Yes) = pYes (vLLM's format). Without logprobs
 * (`logprobs: false`), only the token itself; with `onlyChosen`, top_logprobs list the chosen
 * token alone (a server asked for fewer alternatives).
 */
export function shieldGemma(pYes: number, options: { logprobs?: boolean; onlyChosen?: boolean } = {}): Behaviour {
  return (_req, res) => {
    const yes = Math.log(pYes);
    const no = Math.log(1 - pYes);
    const token = pYes >= 0.5 ? "Yes" : "No";
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "chatcmpl-fake",
      object: "chat.completion",
      model: "google/shieldgemma-2b",
      choices: [{
        index: 0,
        message: { role: "assistant", content: token },
        finish_reason: "length",
        ...(options.logprobs === false ? {} : {
          logprobs: { content: [{ token, logprob: Math.max(yes, no), bytes: [], top_logprobs: options.onlyChosen ? [{ token, logprob: Math.max(yes, no), bytes: [] }] : [{ token: "Yes", logprob: yes, bytes: [] }, { token: "No", logprob: no, bytes: [] }, { token: "I", logprob: -12, bytes: [] }] }] },
        }),
      }],
    }));
  };
}

/** Waits `ms` before acting as `then`. */
export function slow(ms: number, then: Behaviour): Behaviour {
  return async (req, res, recorded) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (!res.destroyed) await then(req, res, recorded);
  };
}
