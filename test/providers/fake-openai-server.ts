import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CATEGORY_IDS, type CategoryId } from "../../src/classifiers/categories.js";

/** A request the fake server received, decoded. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: any;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>;

/**
 * A real HTTP server speaking the OpenAI chat-completions protocol, scripted per request: each
 * request takes the next queued behaviour, or the default one when the queue is empty.
 */
export interface FakeOpenAiServer {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Most requests the server was handling at the same time. */
  readonly maxInFlight: number;
  readonly inFlight: number;
  /** Behaviours for the next requests, in order. */
  enqueue(...behaviours: Behaviour[]): void;
  setDefault(behaviour: Behaviour): void;
  /** A behaviour that holds the request open until `releaseHeld()` (or close), then acts as `then`. */
  hold(then?: Behaviour): Behaviour;
  /** Never answers; the client must give up on its own. */
  silence(): Behaviour;
  /** Lets every held request continue. */
  releaseHeld(): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(defaultBehaviour: Behaviour = verdict({})): Promise<FakeOpenAiServer> {
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  let fallback = defaultBehaviour;
  let inFlight = 0;
  let maxInFlight = 0;
  const held: Array<() => void> = [];

  const server = createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://localhost");
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body };
    requests.push(recorded);
    const behaviour = queue.shift() ?? fallback;
    try {
      await behaviour(req, res, recorded);
    } catch (error) {
      if (!res.headersSent) res.writeHead(599);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeOpenAiServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    enqueue: (...behaviours) => void queue.push(...behaviours),
    setDefault: (behaviour) => void (fallback = behaviour),
    hold: (then = verdict({})) => async (req, res, recorded) => {
      await new Promise<void>((resolve) => held.push(resolve));
      if (!res.destroyed) await then(req, res, recorded);
    },
    silence: () => async () => {
      await new Promise<void>((resolve) => held.push(resolve));
    },
    releaseHeld: () => {
      for (const release of held.splice(0)) release();
    },
    close: async () => {
      for (const release of held.splice(0)) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** Answers with a chat completion whose message content is `content`. */
export function completion(content: string, options: { model?: string; finishReason?: string; refusal?: string } = {}): Behaviour {
  return (_req, res) => {
    json(res, 200, {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 0,
      model: options.model ?? "fake-vision-1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, ...(options.refusal ? { refusal: options.refusal } : {}) },
          finish_reason: options.finishReason ?? "stop",
        },
      ],
    });
  };
}

/** A valid verdict: every category 0 unless given. */
export function verdict(scores: Partial<Record<CategoryId, number>>, reason = "Nothing harmful.", model?: string): Behaviour {
  return completion(JSON.stringify(verdictBody(scores, reason)), model ? { model } : {});
}

export function verdictBody(scores: Partial<Record<CategoryId, number>>, reason = "Nothing harmful."): Record<string, unknown> {
  return { categories: Object.fromEntries(CATEGORY_IDS.map((id) => [id, scores[id] ?? 0])), reason };
}

export function status(code: number, body: unknown = { error: { message: "failure" } }, headers: Record<string, string> = {}): Behaviour {
  return (_req, res) => json(res, code, body, headers);
}

export function rawBody(code: number, text: string, contentType = "application/json"): Behaviour {
  return (_req, res) => {
    res.writeHead(code, { "content-type": contentType });
    res.end(text);
  };
}

function json(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
