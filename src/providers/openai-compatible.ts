import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { CategoryVerdict } from "../classifiers/classifier.js";
import type { DeepAnalysisRequest, DeepAnalysisResult, DeepAnalyzer } from "./deep-analyzer.js";
import { SYSTEM_PROMPT, VERDICT_JSON_SCHEMA, userInstruction } from "./prompt.js";
import { ProviderError } from "./provider-error.js";
import { fetchFailure, readAnswer, type ProviderWording } from "./read-response.js";
import { parseVisionVerdict } from "./verdict-parser.js";

const VISION: ProviderWording = { name: "vision provider", cancelled: "The deep analysis was cancelled." };

/** A deep-analysis score at or above this flags the category. */
const DEEP_FLAG_THRESHOLD = 0.5;

export interface OpenAiCompatibleOptions {
  /**
   * Base URL up to, not including, `/chat/completions`: "https://api.openai.com/v1",
   * "http://localhost:11434/v1" (Ollama), "http://vllm:8000/v1",
   * "https://NAME.openai.azure.com/openai/deployments/DEPLOYMENT" (Azure, with apiVersion).
   */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** "authorization" sends `Authorization: Bearer KEY` (OpenAI, vLLM...); "api-key" is Azure's header. */
  apiKeyHeader?: "authorization" | "api-key";
  /** Azure's `api-version` query parameter. */
  apiVersion?: string;
  /** Name reported as the result's provider. */
  providerName?: string;
  /** How the JSON answer is requested; "none" for servers that reject response_format. */
  responseFormat?: "json_schema" | "json_object" | "none";
  /** OpenAI's image detail hint: "low" is cheaper, "high" reads small text better. */
  imageDetail?: "low" | "high" | "auto";
  /** Largest provider response read, in bytes. */
  maxResponseBytes?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

const DEFAULT_PROVIDER_NAME = "openai-compatible";

/** One attempt per call; see createGuardedAnalyzer for retries, time limits and the breaker. */
export function createOpenAiCompatibleAnalyzer(options: OpenAiCompatibleOptions): DeepAnalyzer {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/chat/completions`);
  if (options.apiVersion) url.searchParams.set("api-version", options.apiVersion);
  const provider = options.providerName ?? DEFAULT_PROVIDER_NAME;
  const doFetch = options.fetch ?? fetch;
  const maxResponseBytes = options.maxResponseBytes ?? 1024 * 1024;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) {
    if (options.apiKeyHeader === "api-key") headers["api-key"] = options.apiKey;
    else headers.authorization = `Bearer ${options.apiKey}`;
  }

  return {
    provider,
    model: options.model,
    async analyze(request: DeepAnalysisRequest): Promise<DeepAnalysisResult> {
      if (request.images.length === 0) throw new Error("deep analysis needs at least one image");
      const body = JSON.stringify(buildRequestBody(options, request));
      let response: Response;
      try {
        response = await doFetch(url, {
          method: "POST",
          headers,
          body,
          // Not followed, and answered as its status: "error" made it a network failure, retried twice.
          redirect: "manual",
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        throw fetchFailure(error, request.signal, VISION);
      }
      const text = await readAnswer(response, maxResponseBytes, request.signal, VISION);
      const message = readChatCompletion(text);
      const parsed = parseVisionVerdict(message.content);
      return {
        provider,
        model: message.model ?? options.model,
        categories: Object.fromEntries(
          CATEGORY_IDS.map((id) => [id, { score: parsed.scores[id], flagged: parsed.scores[id] >= DEEP_FLAG_THRESHOLD }]),
        ) as Record<CategoryId, CategoryVerdict>,
        reason: parsed.reason,
      };
    },
  };
}

function buildRequestBody(options: OpenAiCompatibleOptions, request: DeepAnalysisRequest): Record<string, unknown> {
  const format = options.responseFormat ?? "json_schema";
  return {
    model: options.model,
    temperature: 0,
    max_tokens: 400,
    messages: [
      { role: "system", content: SYSTEM_PROMPT },
      {
        role: "user",
        content: [
          { type: "text", text: userInstruction(request.images.length) },
          ...request.images.map((image) => ({
            type: "image_url",
            image_url: {
              url: `data:${image.mediaType};base64,${image.data.toString("base64")}`,
              detail: options.imageDetail ?? "auto",
            },
          })),
        ],
      },
    ],
    ...(format === "json_schema" ? { response_format: { type: "json_schema", json_schema: VERDICT_JSON_SCHEMA } } : {}),
    ...(format === "json_object" ? { response_format: { type: "json_object" } } : {}),
  };
}

/** Pulls the assistant message out of a chat-completions response body. */
function readChatCompletion(text: string): { content: string; model: string | undefined } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw malformedResponse("the response body is not JSON", error);
  }
  const record = asRecord(body);
  const choice = asRecord(Array.isArray(record?.choices) ? record.choices[0] : undefined);
  const message = asRecord(choice?.message);
  if (!message) throw malformedResponse("the response has no choices[0].message");
  if (typeof message.refusal === "string" && message.refusal.trim() !== "") {
    throw new ProviderError("refused", `The vision model refused to judge the image: ${message.refusal.slice(0, 200)}`, {
      retryable: false,
    });
  }
  if (choice?.finish_reason === "length") throw malformedResponse("the answer was cut off (finish_reason length)");
  const content = typeof message.content === "string" ? message.content : joinTextParts(message.content);
  if (content === undefined || content.trim() === "") throw malformedResponse("the message has no text content");
  // The name goes into the signed answer's `models`: none with control, format, unassigned or
  // surrogate characters or line separators (a NUL, a newline, a right-to-left override); the
  // configured name stands in for it.
  const model = typeof record?.model === "string" && record.model.trim() !== "" && record.model.length <= 200 && !/[\p{C}\p{Zl}\p{Zp}]/u.test(record.model) ? record.model : undefined;
  return { content, model };
}

/** Some servers return content as an array of typed parts. */
function joinTextParts(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts = content.map(asRecord).flatMap((part) => (part?.type === "text" && typeof part.text === "string" ? [part.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function malformedResponse(detail: string, cause?: unknown): ProviderError {
  return new ProviderError("malformed", `The vision provider's response is malformed: ${detail}.`, {
    retryable: true,
    ...(cause === undefined ? {} : { cause }),
  });
}

