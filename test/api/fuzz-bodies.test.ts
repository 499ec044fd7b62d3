import { toBinary, create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { ERROR_CODES } from "../../src/errors/api-error.js";
import { useServerWithKey } from "../support/test-server.js";
import { PNG_DATA_URI } from "./error-expectations.js";
import { seededRandom } from "../support/seeded-random.js";
import { mutateBytes, pick } from "../support/fuzz-mutations.js";

// Mutated request bodies, the same on every run (seeded): whatever a caller sends, the answer is a
// 200 or a stable client error, signed, and never a 500 or a dropped connection. The seeds are
// valid requests; each case applies a few byte-level or structural mutations to one of them.

const CASES = 250;
/** Hundreds of sequential requests, some with images: generous, for a loaded 2-core CI machine. */
const TIMEOUT_MS = 180_000;

const SEEDS = [
  { input: [{ type: "text", text: "Thanks for the quick reply, see you tomorrow." }] },
  { input: [{ type: "text", text: "I will find you" }, { type: "text", text: "and hurt you" }], analyze_images: false },
  { input: [{ type: "image", base64: PNG_DATA_URI }] },
  { input: [{ type: "text", text: "caf\u00e9 \u{1F600} \u200bzero width" }, { type: "image", base64: PNG_DATA_URI }] },
];

/** JSON values that tend to break parsers and validators, to put where a field's value was. */
const ODD_VALUES: unknown[] = [
  null, true, 0, -0, 1e308, -1, 3.5, "", " ", "\u0000", "\ud800", "\udfff\ud800", "x".repeat(10_001), "\u{1F600}".repeat(5001),
  [], [null], {}, { type: "text" }, [[[[]]]], "data:image/png;base64,", "data:image/png;base64,!!!!", "data:,", "text", "image",
  { __proto__: null, constructor: 1 }, Array.from({ length: 11 }, () => ({ type: "text", text: "a" })),
];

/** Raw fragments to splice into the JSON text. */
const ODD_FRAGMENTS = ['{', '}', '[', ']', ',', ':', '"', '\\', 'null', '1e999', '"\\ud800"', '"\\u0000"', '"__proto__":{}', '[' .repeat(2000), '\u00ff', '\ufeff', '/*', '\n', 'NaN', '-'];

type Json = unknown;

/** Replaces one value somewhere in the request (a field, an item, the input list) with an odd one. */
function mutateStructure(next: () => number, body: Json): Json {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, any>;
  const odd = pick(next, ODD_VALUES);
  const where = Math.floor(next() * 5);
  if (where === 0) copy["input"] = odd;
  else if (where === 1) copy["analyze_images"] = odd;
  else if (where === 2) copy[pick(next, ["extra", "__proto__", "constructor", "Input"])] = odd;
  else if (Array.isArray(copy["input"]) && copy["input"].length > 0) {
    const item = copy["input"][Math.floor(next() * copy["input"].length)];
    if (where === 3) copy["input"][copy["input"].indexOf(item)] = odd;
    else item[pick(next, ["type", "text", "base64", "extra"])] = odd;
  }
  return copy;
}

function caseBody(index: number): Uint8Array {
  const next = seededRandom(1000 + index);
  let body: Json = pick(next, SEEDS);
  const structural = 1 + Math.floor(next() * 2);
  for (let i = 0; i < structural; i++) if (next() < 0.7) body = mutateStructure(next, body);
  let bytes: Uint8Array = new TextEncoder().encode(JSON.stringify(body));
  // Half the cases stay well-formed JSON, so validation (not only the parser) is exercised.
  if (next() < 0.5) for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++) bytes = mutateBytes(next, bytes, ODD_FRAGMENTS);
  return bytes;
}

const CLIENT_ERRORS = new Set(Object.keys(ERROR_CODES).filter((code) => code !== "internal_error"));

const file = useServerWithKey();

describe("mutated request bodies", () => {
  it("get a signed 200 or a stable client error on POST /v1/moderate, never a 500", async () => {
    const statuses = new Map<number, number>();
    for (let index = 0; index < CASES; index++) {
      const response = await fetch(`${file.server.httpUrl}/v1/moderate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": file.key },
        body: Buffer.from(caseBody(index)),
      });
      const text = await response.text();
      const label = `case ${index}: ${response.status} ${text.slice(0, 200)}`;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect([200, 400, 413, 415], label).toContain(response.status);
      expect(response.headers.get("signature"), label).toMatch(/^sig1=:/);
      const body = JSON.parse(text) as { results?: unknown[]; error?: { code: string; message: string } };
      if (response.status === 200) {
        expect(Array.isArray(body.results), label).toBe(true);
      } else {
        expect(CLIENT_ERRORS.has(body.error!.code), label).toBe(true);
        expect(body.error!.message.length, label).toBeGreaterThan(10);
      }
    }
    // The mutations must reach both outcomes, or the test proves little.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(CASES / 20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(CASES / 4);
  }, TIMEOUT_MS);

  it("get an answer or a client error over Connect's JSON codec, never a server error", async () => {
    let answered = 0;
    for (let index = 0; index < CASES; index++) {
      const response = await fetch(`${file.server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": file.key },
        body: Buffer.from(caseBody(index)),
      });
      const text = await response.text();
      const label = `case ${index}: ${response.status} ${text.slice(0, 200)}`;
      expect(response.status, label).toBeLessThan(500);
      if (response.status === 200) answered++;
      else expect(response.headers.get("x-error-code"), label).toSatisfy((code: string | null) => code !== null && CLIENT_ERRORS.has(code));
      expect(response.headers.get("signature"), label).toMatch(/^sig1=:/);
    }
    expect(answered).toBeGreaterThan(0);
  }, TIMEOUT_MS);

  it("get OK or INVALID_ARGUMENT over gRPC for damaged protobuf bytes, and the server keeps answering", async () => {
    const client = new grpc.Client(new URL(file.server.grpcUrl).host, grpc.credentials.createInsecure());
    const valid = toBinary(ModerateRequestSchema, create(ModerateRequestSchema, {
      input: [{ type: "text", text: "hello there, friend" }, { type: "image", base64: PNG_DATA_URI }],
    }));
    const call = (bytes: Uint8Array) => new Promise<number>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set("x-api-key", file.key);
      client.makeUnaryRequest("/moderation.v1.ModerationService/Moderate", (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), metadata,
        (error: grpc.ServiceError | null) => resolve(error ? error.code : grpc.status.OK));
    });
    const codes = new Map<number, number>();
    try {
      for (let index = 0; index < CASES; index++) {
        const next = seededRandom(5000 + index);
        let bytes: Uint8Array = valid;
        for (let i = 0, n = 1 + Math.floor(next() * 4); i < n; i++) {
          bytes = bytes.slice();
          bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
        }
        const code = await call(bytes);
        codes.set(code, (codes.get(code) ?? 0) + 1);
        expect([grpc.status.OK, grpc.status.INVALID_ARGUMENT], `case ${index}: status ${code}`).toContain(code);
      }
      expect(await call(valid)).toBe(grpc.status.OK);
    } finally {
      client.close();
    }
    expect(codes.get(grpc.status.INVALID_ARGUMENT) ?? 0).toBeGreaterThan(0);
  }, TIMEOUT_MS);
});
