import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { NSFW_MODEL_ID } from "../../src/images/nsfw-classifier.js";
import { decodeGrpcMessage, GRPC } from "../api/error-expectations.js";
import { startFakeOpenAiServer, status, verdict, type FakeOpenAiServer } from "../providers/fake-openai-server.js";
import { callJson, callModerate, PROTOCOLS, type ModerateBody, type Outcome, type Protocol } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitUntil } from "../support/poll.js";
import { animated, dataUri, png } from "./fixtures.js";

/** The image codes of the spec's error table, written out rather than read from the code under test. */
const IMAGE_ERRORS = {
  invalid_image: { http: 400, grpc: GRPC.INVALID_ARGUMENT },
  unsupported_image_type: { http: 415, grpc: GRPC.INVALID_ARGUMENT },
  image_too_large: { http: 413, grpc: GRPC.INVALID_ARGUMENT },
  deep_analysis_not_configured: { http: 501, grpc: 9 /* FAILED_PRECONDITION */ },
  deep_analysis_unavailable: { http: 503, grpc: 14 /* UNAVAILABLE */ },
} as const;

function expectImageError(outcome: Outcome, protocol: Protocol, code: keyof typeof IMAGE_ERRORS, message: string): void {
  if (outcome.ok) throw new Error(`expected ${code} over ${protocol}, got ${JSON.stringify(outcome.body).slice(0, 300)}`);
  const expected = protocol === "json" ? IMAGE_ERRORS[code].http : IMAGE_ERRORS[code].grpc;
  expect({ code: outcome.code, status: outcome.status }).toEqual({ code, status: expected });
  expect(protocol === "grpc" ? decodeGrpcMessage(outcome.message) : outcome.message).toBe(message);
}

/** grpc-js reports unset messages as null and numbers as numbers; JSON omits them. */
function imageResult(body: any, index: number) {
  const result = body.results[index];
  return {
    type: result.type,
    flagged: Boolean(result.flagged),
    categories: Object.keys(result.categories ?? {}).sort(),
    models: result.models,
    image: result.image == null ? undefined : {
      media_type: result.image.media_type,
      width: Number(result.image.width),
      height: Number(result.image.height),
      frames: Number(result.image.frames),
      frames_sampled: Number(result.image.frames_sampled),
    },
    deep: result.deep_analysis ?? undefined,
  };
}

let vision: FakeOpenAiServer;
let server: TestServer;
let bare: TestServer;
let key: string;
let bareKey: string;
let pngUri: string;
let gifUri: string;

beforeAll(async () => {
  vision = await startFakeOpenAiServer();
  server = await startTestServer({
    env: {
      VISION_BASE_URL: vision.baseUrl,
      VISION_MODEL: "vision-e2e",
      VISION_MAX_RETRIES: "0",
      VISION_CIRCUIT_FAILURES: "1000", // each test scripts its own failures; keep the circuit out of it
    },
  });
  bare = await startTestServer(); // no vision provider configured
  ({ key } = await server.createAccount("enterprise", 1_000_000));
  ({ key: bareKey } = await bare.createAccount("enterprise", 1_000_000));
  pngUri = dataUri("image/png", await png(96, 64, "#4a7bd0"));
  gifUri = dataUri("image/gif", await animated("gif", 10));
});
afterAll(async () => {
  await server?.close();
  await bare?.close();
  await vision?.close();
});

describe.each(PROTOCOLS)("images over %s", (protocol) => {
  const endpoints = () => ({ httpUrl: server.httpUrl, grpcUrl: server.grpcUrl });
  const call = (body: ModerateBody) => callModerate(protocol, endpoints(), body, key);

  it("judges a text and an image item side by side; the image gets only what nsfwjs judges", async () => {
    const outcome = await call({ input: [{ type: "text", text: "See you on Sunday!" }, { type: "image", base64: pngUri }] });
    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
    expect(outcome.body.results[0].type).toBe("text");
    expect(imageResult(outcome.body, 1)).toMatchObject({
      type: "image",
      categories: ["sexual"],
      models: [NSFW_MODEL_ID],
      image: { media_type: "image/png", width: 96, height: 64, frames: 1, frames_sampled: 1 },
      deep: undefined,
    });
  });

  it("with analyze_images, merges the vision model's verdict and reports it per image", async () => {
    const before = vision.requests.length;
    vision.enqueue(verdict({ violence: 0.8, sexual: 0.1 }, "A fight scene.", "vision-e2e-2025"));
    const outcome = await call({ input: [{ type: "image", base64: gifUri }], analyze_images: true });
    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
    const result = imageResult(outcome.body, 0);
    expect(result.categories).toEqual([...CATEGORY_IDS].sort());
    expect(result.models).toEqual([NSFW_MODEL_ID, "openai-compatible:vision-e2e-2025"]);
    expect(result.image).toEqual({ media_type: "image/gif", width: 40, height: 30, frames: 10, frames_sampled: 4 });
    expect(result.flagged).toBe(true);
    expect(outcome.body.flagged).toBe(true);
    expect(outcome.body.results[0].categories.violence).toMatchObject({ flagged: true });
    expect(Number(outcome.body.results[0].categories.violence.score)).toBeCloseTo(0.8);
    expect(result.deep).toMatchObject({ provider: "openai-compatible", model: "vision-e2e-2025", reason: "A fight scene." });
    expect(Number(result.deep.categories.violence.score)).toBeCloseTo(0.8);
    const sent = vision.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body.messages[1].content.filter((p: any) => p.type === "image_url")).toHaveLength(4);
  });

  it("fails the request with deep_analysis_unavailable when the provider fails", async () => {
    vision.enqueue(status(500));
    const outcome = await call({ input: [{ type: "text", text: "hi" }, { type: "image", base64: pngUri }], analyze_images: true });
    expectImageError(
      outcome,
      protocol,
      "deep_analysis_unavailable",
      "input[1]: Deep image analysis is unavailable: the vision provider could not be reached or returned an error.",
    );
  });

  it("refuses analyze_images with deep_analysis_not_configured when no provider is set", async () => {
    const outcome = await callModerate(protocol, { httpUrl: bare.httpUrl, grpcUrl: bare.grpcUrl }, { input: [{ type: "image", base64: pngUri }], analyze_images: true }, bareKey);
    expectImageError(
      outcome,
      protocol,
      "deep_analysis_not_configured",
      "Deep image analysis (analyze_images) is not configured on this server; send the request without analyze_images.",
    );
  });

  it("rejects images that fail strict decoding with their stable codes", async () => {
    const truncatedPng = dataUri("image/png", Buffer.from(pngUri.slice(pngUri.indexOf(",") + 1), "base64").subarray(0, 60));
    expectImageError(await call({ input: [{ type: "image", base64: truncatedPng }] }), protocol, "invalid_image", "input[0]: The image data is corrupt or truncated and cannot be decoded.");
    const bmp = `data:image/bmp;base64,${Buffer.from("BM").toString("base64")}`;
    const unsupported = await call({ input: [{ type: "image", base64: bmp }] });
    expect(unsupported.ok ? undefined : unsupported.code).toBe("unsupported_image_type");
  });
});

describe("inference off the event loop", () => {
  it("answers a text request before images that are waiting for the model", async () => {
    const order: string[] = [];
    const images = Array.from({ length: 6 }, () =>
      callJson(server.httpUrl, { input: [{ type: "image", base64: gifUri }] }, key).then((o) => {
        order.push("image");
        return o;
      }),
    );
    // Give the image requests a head start. Each scores 4 frames on the one test worker (well over
    // 50 ms), so if inference held the event loop, the text request would wait behind an image.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = await callJson(server.httpUrl, { input: [{ type: "text", text: "Nice weather today." }] }, key);
    order.push("text");
    const outcomes = await Promise.all(images);
    expect(text.ok).toBe(true);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(order[0]).toBe("text");
  });
});

describe("a JSON caller that hangs up", () => {
  it("cancels the vision-provider call it was waiting for", async () => {
    vision.enqueue(vision.hold());
    const before = vision.requests.length;
    const caller = new AbortController();
    const pending = fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: [{ type: "image", base64: pngUri }], analyze_images: true }),
      signal: caller.signal,
    }).catch(() => undefined);
    await waitUntil(() => vision.requests.length > before && vision.inFlight === 1, "the provider call");
    caller.abort();
    await pending;
    // The held provider request closes because the service gave up on it, not because it was released.
    await waitUntil(() => vision.inFlight === 0, "the provider call to be cancelled");
    vision.releaseHeld();
  });
});
