import { asRecord, malformed } from "./http-json.js";

/** What a guard family reads from a chat completion: the text, and the first token's alternatives when logprobs were asked for. */
export interface GuardAnswer {
  content: string;
  /** The first generated token's top alternatives (token text, natural-log probability), when the server sent logprobs. */
  firstTokenAlternatives: { token: string; logprob: number }[] | undefined;
}

/**
 * Reads choices[0] of a chat-completions response body (OpenAI's format, which vLLM, Ollama,
 * LM Studio and others answer in). A cut-off answer is fine here (ShieldGemma is asked for one
 * token); a refusal or no text is malformed.
 */
export function readGuardAnswer(body: unknown): GuardAnswer {
  const choices = asRecord(body)?.choices;
  const choice = asRecord(Array.isArray(choices) ? choices[0] : undefined);
  const message = asRecord(choice?.message);
  if (!choice || !message) throw malformed("the response has no choices[0].message");
  const content = typeof message.content === "string" ? message.content : joinTextParts(message.content);
  const logprobs = asRecord(choice.logprobs)?.content;
  const first = asRecord(Array.isArray(logprobs) ? logprobs[0] : undefined);
  const firstTokenAlternatives = first ? alternatives(first) : undefined;
  if ((content === undefined || content.trim() === "") && !firstTokenAlternatives) throw malformed("the message has no text content");
  return { content: content ?? "", firstTokenAlternatives };
}

function alternatives(first: Record<string, unknown>): GuardAnswer["firstTokenAlternatives"] {
  const top = Array.isArray(first.top_logprobs) ? first.top_logprobs : [];
  const list = [first, ...top].map(asRecord).flatMap((entry) =>
    entry && typeof entry.token === "string" && typeof entry.logprob === "number" && Number.isFinite(entry.logprob) ? [{ token: entry.token, logprob: entry.logprob }] : [],
  );
  return list.length > 0 ? list : undefined;
}

function joinTextParts(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts = content.map(asRecord).flatMap((part) => (part?.type === "text" && typeof part.text === "string" ? [part.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}
