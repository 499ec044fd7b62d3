import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/base/env-values.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { readImageConfig } from "../../src/images/config.js";
import { decodeGrpcMessage, GRPC } from "../api/error-expectations.js";
import { callModerate, PROTOCOLS, type Outcome } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { animated, dataUri, png } from "./fixtures.js";

/**
 * Reaching frame i of a GIF or WebP decodes frames 0 to i, and each sampled frame is decoded on its
 * own: a 98 KB WebP of 2,000 frames took 4.3 s of CPU, inside every other limit (found by an audit).
 * The work is counted from the header, each frame as at least 128×128 pixels, a GIF's pixels one in
 * six (they decode about six times faster), and an animation over the budget (64,000,000 pixels
 * unless IMAGE_MAX_ANIMATION_DECODE_PIXELS says otherwise) is refused before any frame is decoded.
 * Ordinary GIFs of 640×360 and 480×480 over 7 s, once refused by an uncounted budget, are scored
 * (found by a review). Written-out numbers, not read from the code under test.
 */

/** A GIF of a box moving over a two-tone background, as a screen capture or reaction GIF (the review's shape). */
async function movingBoxGif(width: number, height: number, frames: number): Promise<Buffer> {
  const frameBytes = width * height * 3;
  const strip = Buffer.alloc(frameBytes * frames);
  for (let f = 0; f < frames; f++) {
    strip.fill(Buffer.from([30, 90, 60]), f * frameBytes, f * frameBytes + frameBytes / 2);
    strip.fill(Buffer.from([30, 160, 60]), f * frameBytes + frameBytes / 2, (f + 1) * frameBytes);
    for (let y = 40; y < 120; y++) {
      const left = (f * 3) % (width - 60);
      strip.fill(Buffer.from([220, 40, 60]), f * frameBytes + (y * width + left) * 3, f * frameBytes + (y * width + left + 60) * 3);
    }
  }
  return sharp(strip, { raw: { width, height: height * frames, channels: 3, pageHeight: height } }).gif({ delay: 40, effort: 1 }).toBuffer();
}

/** `frames` frames of `side`² pixels alternating between two colours (identical frames would be merged). */
async function manyFrames(format: "gif" | "webp", frames: number, side: number): Promise<Buffer> {
  const strip = Buffer.alloc(side * side * frames * 3);
  for (let f = 0; f < frames; f++) strip.fill(f % 2 ? 0x80 : 0x40, f * side * side * 3, (f + 1) * side * side * 3);
  const image = sharp(strip, { raw: { width: side, height: side * frames, channels: 3, pageHeight: side } });
  return format === "gif" ? image.gif({ delay: 20, effort: 1 }).toBuffer() : image.webp({ lossless: true, effort: 0, delay: 20 }).toBuffer();
}

const image = (mediaType: string, bytes: Buffer) => ({ type: "image", base64: dataUri(mediaType, bytes) });

function expectTooLarge(outcome: Outcome, protocol: string, message: string): void {
  if (outcome.ok) throw new Error(`expected image_too_large over ${protocol}, got ${JSON.stringify(outcome.body).slice(0, 300)}`);
  expect({ code: outcome.code, status: outcome.status }).toEqual({ code: "image_too_large", status: protocol === "json" ? 413 : GRPC.INVALID_ARGUMENT });
  expect(protocol === "grpc" ? decodeGrpcMessage(outcome.message) : outcome.message).toBe(message);
}

let server: TestServer;
let tight: TestServer;
let key: string;
let tightKey: string;

beforeAll(async () => {
  server = await startTestServer();
  // 22 frames of at most 128×128: exactly what the four sampled frames (0, 3, 6, 9) of a 10-frame animation take.
  tight = await startTestServer({ env: { IMAGE_MAX_ANIMATION_DECODE_PIXELS: String(22 * 16384) } });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
  ({ key: tightKey } = await tight.createAccount("enterprise", 1_000_000));
});
afterAll(async () => {
  await server?.close();
  await tight?.close();
});

describe("the decoding budget of an animation", () => {
  it.each([
    {
      format: "webp",
      frames: 2500,
      // Frames 0, 833, 1666 and 2499 are sampled: 1 + 834 + 1667 + 2500 = 5002 frames decoded, each counted as 16384 pixels.
      counted: "decodes 81952768 pixels (reaching a frame decodes every frame before it, each counted as at least 16384)",
    },
    {
      format: "gif",
      frames: 12000,
      // Frames 0, 4000, 7999 and 11999: 1 + 4001 + 8000 + 12000 = 24002 frames of 16384 pixels, counted as one in six.
      counted:
        "decodes 393248768 pixels (reaching a frame decodes every frame before it, each counted as at least 16384), " +
        "counted as 65541462 (a GIF's pixels count one in 6, as they decode that much faster)",
    },
  ] as const)("refuses a $format of $frames small frames from its header, on every protocol, signed", async ({ format, frames, counted }) => {
    const body = { input: [{ type: "text", text: "hello" }, image(`image/${format}`, await manyFrames(format, frames, 32))] };
    const message = `input[1]: The animation has ${frames} frames of 32×32 pixels; scoring 4 of them, up to frame ${frames}, ${counted}; the limit is 64000000 pixels decoded per animation.`;
    for (const protocol of PROTOCOLS) {
      expectTooLarge(await callModerate(protocol, { httpUrl: server.httpUrl, grpcUrl: server.grpcUrl }, body, key), protocol, message);
    }
    const requestBody = new TextEncoder().encode(JSON.stringify(body));
    const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: requestBody });
    const received = { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
    expect(received.status).toBe(413);
    const jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
    expect(await verifyModerationResponse({ ...received, requestBody, jwks, expect: { route: "/v1/moderate" } })).toMatchObject({ valid: true });
  });

  it("scores an animation within the budget, and reports its frames as before", async () => {
    // Frames 0, 633, 1266 and 1899: 3802 frames of 16384 pixels = 62291968.
    const outcome = await callModerate("json", { httpUrl: server.httpUrl, grpcUrl: server.grpcUrl }, { input: [image("image/webp", await manyFrames("webp", 1900, 32))] }, key);
    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
    expect(outcome.body.results[0].image).toEqual({ media_type: "image/webp", width: 32, height: 32, frames: 1900, frames_sampled: 4 });
  });

  it.each([
    // 402 frames of 640×360 decoded = 92620800 pixels, counted as 15436800; the review found it refused (CPU 26-28 ms).
    [640, 360, 200],
    // 362 frames of 480×480 = 83404800 pixels, counted as 13900800 (CPU 25 ms).
    [480, 480, 180],
  ])("scores an ordinary %i×%i GIF of %i frames", async (width, height, frames) => {
    const outcome = await callModerate("json", { httpUrl: server.httpUrl, grpcUrl: server.grpcUrl }, { input: [image("image/gif", await movingBoxGif(width, height, frames))] }, key);
    if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
    expect(outcome.body.results[0].image).toEqual({ media_type: "image/gif", width, height, frames, frames_sampled: 4 });
  });

  it("holds to IMAGE_MAX_ANIMATION_DECODE_PIXELS: a budget met exactly is scored, one frame more is refused, a still is not counted", async () => {
    const call = (input: ReturnType<typeof image>[]) => callModerate("json", { httpUrl: tight.httpUrl, grpcUrl: tight.grpcUrl }, { input }, tightKey);
    const exact = await call([image("image/webp", await animated("webp", 10))]);
    if (!exact.ok) throw new Error(`${exact.code}: ${exact.message}`);
    expect(exact.body.results[0].image).toMatchObject({ frames: 10, frames_sampled: 4 });
    // Frames 0, 3, 7 and 10: 1 + 4 + 8 + 11 = 24 frames.
    expectTooLarge(
      await call([image("image/webp", await animated("webp", 11))]),
      "json",
      "input[0]: The animation has 11 frames of 40×30 pixels; scoring 4 of them, up to frame 11, decodes 393216 pixels " +
        "(reaching a frame decodes every frame before it, each counted as at least 16384); the limit is 360448 pixels decoded per animation.",
    );
    // A GIF's pixels count one in six: frames 0, 21, 43 and 64 of 65 are 1 + 22 + 44 + 65 = 132 = 6 × 22 frames.
    const gifExact = await call([image("image/gif", await manyFrames("gif", 65, 32))]);
    if (!gifExact.ok) throw new Error(`${gifExact.code}: ${gifExact.message}`);
    expect(gifExact.body.results[0].image).toMatchObject({ frames: 65, frames_sampled: 4 });
    // Frames 0, 22, 43 and 65: 134 frames of 16384 = 2195456 pixels, 365910 counted (rounded up).
    expectTooLarge(
      await call([image("image/gif", await manyFrames("gif", 66, 32))]),
      "json",
      "input[0]: The animation has 66 frames of 32×32 pixels; scoring 4 of them, up to frame 66, decodes 2195456 pixels " +
        "(reaching a frame decodes every frame before it, each counted as at least 16384), counted as 365910 (a GIF's pixels count one in 6, " +
        "as they decode that much faster); the limit is 360448 pixels decoded per animation.",
    );
    const still = await call([image("image/png", await png(800, 600))]);
    if (!still.ok) throw new Error(`${still.code}: ${still.message}`);
    expect(still.body.results[0].image).toMatchObject({ width: 800, height: 600, frames: 1 });
  });

  it("refuses a budget below one frame's count, naming the variable", () => {
    expect(() => readImageConfig({ IMAGE_MAX_ANIMATION_DECODE_PIXELS: "1000" })).toThrow(
      new ConfigError('IMAGE_MAX_ANIMATION_DECODE_PIXELS must be an integer from 16384 to 10000000000; got "1000".'),
    );
    expect(readImageConfig({ IMAGE_MAX_ANIMATION_DECODE_PIXELS: "1000000" }).decode).toMatchObject({ maxAnimationDecodePixels: 1_000_000 });
  });
});

describe("a call of ten animations", () => {
  it("waits for decode slots without Node's MaxListenersExceededWarning (one abort listener per waiting frame)", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const gif = image("image/gif", await animated("gif", 10));
      const outcome = await callModerate("json", { httpUrl: server.httpUrl, grpcUrl: server.grpcUrl }, { input: Array.from({ length: 10 }, () => gif) }, key);
      if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
      expect(outcome.body.results.map((r: any) => r.image.frames_sampled)).toEqual(Array(10).fill(4));
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map(String)).toEqual([]);
  });
});
