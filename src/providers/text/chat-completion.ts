import { ProviderError } from "../provider-error.js";
import { asRecord, malformed } from "./http-json.js";

/** What a guard family reads from a completion: the text, why it stopped, and the first token's alternatives when logprobs were asked for. */
export interface GuardAnswer {
  content: string;
  /** `finish_reason` as sent ("stop", "length"...); a family that needs its whole answer refuses "length". */
  finishReason: string | undefined;
  /** The first generated token's top alternatives (token text, natural-log probability), when the server sent logprobs. */
  firstTokenAlternatives: { token: string; logprob: number }[] | undefined;
}

/**
 * Reads choices[0] of a chat-completions response body (OpenAI's format, which vLLM, Ollama,
 * LM Studio and others answer in). A refusal fails at once (asking again gets the same refusal);
 * no text and no logprobs is malformed.
 */
export function readGuardAnswer(body: unknown): GuardAnswer {
  const choices = asRecord(body)?.choices;
  const choice = asRecord(Array.isArray(choices) ? choices[0] : undefined);
  const message = asRecord(choice?.message);
  if (!choice || !message) throw malformed("the response has no choices[0].message");
  if (typeof message.refusal === "string" && message.refusal.trim() !== "") {
    throw new ProviderError("refused", "The text provider's model declined to judge the text.", { retryable: false });
  }
  const content = typeof message.content === "string" ? message.content : joinTextParts(message.content);
  const firstTokenAlternatives = alternatives(chatShapedEntries(asRecord(choice.logprobs)));
  if ((content === undefined || content.trim() === "") && !firstTokenAlternatives) throw malformed("the message has no text content");
  return { content: content ?? "", finishReason: finishReasonOf(choice), firstTokenAlternatives };
}

/**
 * Reads choices[0] of a (legacy) completions response body, as vLLM and OpenAI answer
 * `POST /completions`: `text`, and with `logprobs: N` the first position's `top_logprobs` map of
 * token to log-probability beside `tokens` / `token_logprobs` (or, from servers that answer so,
 * chat-shaped `logprobs.content`).
 */
export function readCompletionAnswer(body: unknown): GuardAnswer {
  const choices = asRecord(body)?.choices;
  const choice = asRecord(Array.isArray(choices) ? choices[0] : undefined);
  if (!choice || (choice.text !== undefined && typeof choice.text !== "string")) throw malformed("the response has no choices[0].text");
  const content = typeof choice.text === "string" ? choice.text : "";
  const logprobs = asRecord(choice.logprobs);
  // Some servers (llama.cpp) answer completions with chat-shaped logprobs.
  const listed = chatShapedEntries(logprobs);
  const tokens = Array.isArray(logprobs?.tokens) ? logprobs.tokens : [];
  const tokenLogprobs = Array.isArray(logprobs?.token_logprobs) ? logprobs.token_logprobs : [];
  if (tokens.length > 0) listed.push({ token: tokens[0], logprob: tokenLogprobs[0] });
  const top = asRecord(Array.isArray(logprobs?.top_logprobs) ? logprobs.top_logprobs[0] : undefined);
  if (top) for (const [token, logprob] of Object.entries(top)) listed.push({ token, logprob });
  const firstTokenAlternatives = alternatives(listed);
  if (content.trim() === "" && !firstTokenAlternatives) throw malformed("the completion has no text");
  return { content, finishReason: finishReasonOf(choice), firstTokenAlternatives };
}

function finishReasonOf(choice: Record<string, unknown>): string | undefined {
  return typeof choice.finish_reason === "string" ? choice.finish_reason : undefined;
}

/** Chat-shaped logprobs' first position: `content[0]` and its `top_logprobs` list (none when absent). */
function chatShapedEntries(logprobs: Record<string, unknown> | undefined): unknown[] {
  const first = asRecord(Array.isArray(logprobs?.content) ? logprobs.content[0] : undefined);
  return first ? [first, ...(Array.isArray(first.top_logprobs) ? first.top_logprobs : [])] : [];
}

/** The well-formed {token, logprob} entries; undefined when there are none. */
function alternatives(entries: readonly unknown[]): GuardAnswer["firstTokenAlternatives"] {
  const list = entries.map(asRecord).flatMap((entry) =>
    entry && typeof entry.token === "string" && typeof entry.logprob === "number" && Number.isFinite(entry.logprob) ? [{ token: entry.token, logprob: entry.logprob }] : [],
  );
  return list.length > 0 ? list : undefined;
}

function joinTextParts(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts = content.map(asRecord).flatMap((part) => (part?.type === "text" && typeof part.text === "string" ? [part.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}
