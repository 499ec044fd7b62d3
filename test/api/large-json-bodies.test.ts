import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { createJsonBodyReader, OFF_THREAD_JSON_BYTES, parseWith } from "../../src/http/json-off-thread.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

// A JSON body of 1 MiB or more is read into shared memory and parsed by a compute worker, so a
// call of large images does not hold the event loop for every other caller (json-off-thread.ts,
// `npm run bench:large-bodies`). Its answers and refusals must be those of the inline parser,
// signed over the bytes sent: checked with compute workers and without (WORKER_THREADS=0).

/** A 620×620 PNG of noise: about 1.15 MB, 1.5 MB as base64, so its body is over the bar. */
async function noisePng(): Promise<Buffer> {
  const raw = Buffer.alloc(620 * 620 * 3);
  let s = 1;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    raw[i] = s >>> 24;
  }
  return sharp(raw, { raw: { width: 620, height: 620, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

describe("the JSON routes' parser", () => {
  it("sends bodies of OFF_THREAD_JSON_BYTES or more to the compute pool, and parses smaller ones at once", async () => {
    const sent: number[] = [];
    const read = createJsonBodyReader({ parseJson: async (bytes) => (sent.push(bytes.length), JSON.parse(Buffer.from(bytes).toString())) });
    const parse = parseWith(read, (value) => value);
    const small = Buffer.from(JSON.stringify({ input: "x".repeat(1000) }));
    const large = Buffer.from(JSON.stringify({ input: "x".repeat(OFF_THREAD_JSON_BYTES) }));
    expect(parse(small)).toEqual({ input: "x".repeat(1000) });
    expect(sent).toEqual([]);
    const pending = parse(large);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ input: "x".repeat(OFF_THREAD_JSON_BYTES) });
    expect(sent).toEqual([large.length]);
  });
});

describe.each([["with compute workers", "1"], ["without (WORKER_THREADS=0)", "0"]])("a JSON body over 1 MiB, %s", (_name, workers) => {
  let server: TestServer;
  let key: string;
  let image: string;
  beforeAll(async () => {
    ({ server, key } = await startServerWithKey({ env: { WORKER_THREADS: workers } }));
    image = `data:image/png;base64,${(await noisePng()).toString("base64")}`;
  });
  afterAll(async () => {
    await server?.close();
  });

  async function post(path: string, json: string) {
    expect(Buffer.byteLength(json)).toBeGreaterThanOrEqual(OFF_THREAD_JSON_BYTES);
    const response = await fetch(`${server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: json });
    const raw = new Uint8Array(await response.arrayBuffer());
    const verified = await verifyModerationResponse({
      requestBody: new TextEncoder().encode(json), status: response.status, headers: response.headers, body: raw, jwks: toJwks(server.ctx.signingKeys),
    });
    expect(verified, "signed over the bytes sent").toMatchObject({ valid: true });
    return { status: response.status, body: JSON.parse(new TextDecoder().decode(raw)) };
  }

  it("is judged on /v1/moderate and /v1/moderations, each answer signed over it", async () => {
    const moderated = await post("/v1/moderate", JSON.stringify({ input: [{ type: "text", text: "a quiet picture of the sea" }, { type: "image", base64: image }] }));
    expect(moderated.status).toBe(200);
    expect(moderated.body.results.map((r: { type: string }) => r.type)).toEqual(["text", "image"]);
    expect(moderated.body.results[1].models.length).toBeGreaterThan(0);
    const openai = await post("/v1/moderations", JSON.stringify({ input: [{ type: "image_url", image_url: { url: image } }] }));
    expect(openai.status).toBe(200);
    expect(openai.body.results).toHaveLength(1);
  });

  it.each([
    ["a duplicate key", (uri: string) => `{"input":[{"type":"image","base64":"${uri}","type":"text"}]}`, "invalid_request", /duplicate object key "type"/],
    ["JSON cut short", (uri: string) => `{"input":[{"type":"image","base64":"${uri}"}]`, "invalid_request", /^The request body is not valid JSON: it ends at line 1, column \d+, before its JSON is complete/],
    ["eleven items", (uri: string) => JSON.stringify({ input: Array.from({ length: 11 }, () => ({ type: "image", base64: uri })) }), "too_many_items", /at most 10 input items; this one holds 11/],
  ])("with %s is refused as a small one is", async (_name, body, code, message) => {
    const answer = await post("/v1/moderate", body(image));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
    expect(answer.body.error.message).toMatch(message);
  });
});
