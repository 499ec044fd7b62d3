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
 * vLLM's answer to POST /v1/completions for ShieldGemma asked for one token with `logprobs: 5`:
 * the first position's top_logprobs map holds "Yes" and "No" with P(Yes) = pYes. Without logprobs
 * (`logprobs: false`), only the text; with `onlyChosen`, top_logprobs list the chosen token alone
 * (a server asked for fewer alternatives); `raw` replaces the whole logprobs object.
 */
export function shieldGemma(pYes: number, options: { logprobs?: boolean; onlyChosen?: boolean; raw?: unknown } = {}): Behaviour {
  return (_req, res) => {
    const yes = Math.log(pYes);
    const no = Math.log(1 - pYes);
    const token = pYes >= 0.5 ? "Yes" : "No";
    const chosen = Math.max(yes, no);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      id: "cmpl-fake",
      object: "text_completion",
      created: 1764979200,
      model: "google/shieldgemma-2b",
      choices: [{
        index: 0,
        text: token,
        logprobs: options.raw !== undefined ? options.raw : options.logprobs === false ? null : {
          text_offset: [0],
          token_logprobs: [chosen],
          tokens: [token],
          top_logprobs: [options.onlyChosen ? { [token]: chosen } : { Yes: yes, No: no, I: -12 }],
        },
        finish_reason: "length",
        stop_reason: null,
      }],
      usage: { prompt_tokens: 180, total_tokens: 181, completion_tokens: 1 },
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
