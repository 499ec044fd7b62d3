import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataUri, jpeg, png } from "../images/fixtures.js";
import { callModerate, type Outcome } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { pollUntil } from "../support/poll.js";
import { startFakeOpenAiServer, verdict, type FakeOpenAiServer } from "./fake-openai-server.js";

// The server runs in this process: collections forced here hit its pending provider calls, which is
// when Node 20 lost AbortSignal.timeout signals combined with AbortSignal.any.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const ATTEMPT_MS = 400;
const TOTAL_MS = 1_000;
/**
 * Decoding and the embedded model's verdict come on top of the provider's limit, and a busy 2-core
 * CI machine adds seconds; the bug made calls hang for good (75 s and more in the report).
 */
const SLACK_MS = 25_000;

let vision: FakeOpenAiServer;
let server: TestServer;
let key: string;
let image: string;

beforeAll(async () => {
  vision = await startFakeOpenAiServer();
  vision.setDefault(vision.silence());
  server = await startTestServer({
    env: {
      VISION_BASE_URL: vision.baseUrl,
      VISION_MODEL: "vision-hang",
      VISION_TIMEOUT_MS: String(ATTEMPT_MS),
      VISION_TOTAL_TIMEOUT_MS: String(TOTAL_MS),
      VISION_MAX_RETRIES: "5",
      VISION_MAX_CONCURRENCY: "4",
      VISION_QUEUE_MAX: "32",
      VISION_CIRCUIT_FAILURES: "1000", // the limits are under test, not the breaker
    },
  });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
  image = dataUri("image/png", await png(64, 48, "#a04030"));
  // Load the embedded image model before timing anything.
  const warm = await callModerate("json", server, { input: [{ type: "image", base64: image }] }, key);
  if (!warm.ok) throw new Error(`warm-up failed: ${warm.code}`);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await vision?.close();
});

describe("a vision provider that accepts and never answers, under concurrent load", () => {
  it("every request ends near the total limit with 503, other traffic flows, and the slots come back", { timeout: 120_000 }, async () => {
    let running = true;
    let textServed = 0;
    const textTraffic = Array.from({ length: 4 }, async () => {
      while (running) {
        const outcome = await callModerate("json", server, { input: [{ type: "text", text: "see you tomorrow" }] }, key);
        if (outcome.ok) textServed++;
      }
    });
    const collector = setInterval(gc, 50);
    let results: Array<{ outcome: Outcome; ms: number }>;
    try {
      results = await Promise.all(
        Array.from({ length: 12 }, async () => {
          const started = performance.now();
          const outcome = await callModerate("json", server, { input: [{ type: "image", base64: image }], analyze_images: true }, key);
          return { outcome, ms: performance.now() - started };
        }),
      );
    } finally {
      running = false;
      clearInterval(collector);
      await Promise.all(textTraffic);
    }

    for (const { outcome, ms } of results) {
      expect(outcome).toMatchObject({ ok: false, status: 503, code: "deep_analysis_unavailable" });
      expect(ms).toBeGreaterThanOrEqual(TOTAL_MS - 10);
      expect(ms).toBeLessThan(TOTAL_MS + SLACK_MS);
    }
    expect(textServed).toBeGreaterThan(0);
    // Every abandoned provider request was closed, and the slots are free: an answering provider is used at once.
    await pollUntil(() => vision.inFlight === 0, 10_000, 20);
    expect(vision.inFlight).toBe(0);
    vision.setDefault(verdict({ violence: 0.9 }));
    const answered = await callModerate("json", server, { input: [{ type: "image", base64: image }], analyze_images: true }, key);
    expect(answered.ok, JSON.stringify(answered)).toBe(true);
  });
});

describe("a request whose other item fails", () => {
  it("stops the provider calls of its other items: no attempt after the error is answered", { timeout: 60_000 }, async () => {
    await pollUntil(() => vision.inFlight === 0, 10_000, 20);
    vision.setDefault(vision.silence());
    const before = vision.requests.length;
    const truncated = dataUri("image/jpeg", (await jpeg(200, 150)).subarray(0, 60));
    const images = [image, image, image, truncated].map((base64) => ({ type: "image", base64 }));
    const outcome = await callModerate("json", server, { input: images, analyze_images: true }, key);
    expect(outcome).toMatchObject({ ok: false, status: 400, code: "invalid_image" });
    const attemptsAtAnswer = vision.requests.length;
    // Unstopped, each call went on retrying every 400 ms up to its 1 s total.
    await new Promise((resolve) => setTimeout(resolve, 2 * TOTAL_MS));
    expect(vision.requests.length).toBe(attemptsAtAnswer);
    expect(vision.requests.length - before).toBeLessThanOrEqual(3);
    await pollUntil(() => vision.inFlight === 0, 5_000, 20);
  });
});

