import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import http2 from "node:http2";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus as HealthStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { MAX_STREAMS_PER_CONNECTION } from "../../src/edge/server.js";
import { perAddressStreams } from "../../src/edge/http2-stream-cap.js";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC, PNG_DATA_URI } from "../api/error-expectations.js";
import { createGrpcJsClient } from "../support/protocol-clients.js";
import { envelope, postH1, postH2, type RawRpcAnswer } from "../support/raw-rpc.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../providers/fake-openai-server.js";

// Caller deadlines (grpc-timeout, connect-timeout-ms) and the RPC refusals that used to come
// from Connect without x-error-code or a signature: a malformed deadline, bytes after the one
// message of a unary call; and health's and reflection's answers to damaged input (issue 20,
// items 3 and 8).

const PATH = "/moderation.v1.ModerationService/Moderate";
const DEADLINE_EXCEEDED = 4;
const HELLO = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello there" }] });
/** A request that waits on the vision provider, which here never answers. */
const SLOW = create(ModerateRequestSchema, { input: [{ type: "image", base64: PNG_DATA_URI }], analyzeImages: true });

let server: TestServer;
let vision: FakeOpenAiServer;
let key: string;

beforeAll(async () => {
  vision = await startFakeOpenAiServer();
  vision.setDefault(vision.silence());
  server = await startTestServer({ env: { VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "vision-test" } });
  key = (await server.createAccount("enterprise", 1_000_000)).key;
}, 60_000);

afterAll(async () => {
  vision?.releaseHeld();
  await server?.close();
  await vision?.close();
});

/** Asserts an RPC refusal with its stable code, signed, bound to `requestBytes`. */
async function expectSignedRefusal(answer: RawRpcAnswer, grpcStatus: number, code: string, requestBytes: Uint8Array) {
  const status = answer.grpcStatus ?? connectCodeOf(answer);
  expect({ status, code: answer.metadata["x-error-code"] }).toEqual({ status: grpcStatus, code });
  const message = answer.grpcStatus === undefined ? (JSON.parse(answer.body.toString()) as { message: string }).message : decodeURIComponent(answer.metadata["grpc-message"] ?? "");
  const jwks = toJwks(server.ctx.signingKeys);
  const outcome = { ok: false as const, code: status, message };
  expect(await verifyRpcResponse({ requestBytes, outcome, metadata: answer.metadata, jwks })).toMatchObject({ valid: true });
  return message;
}

/** Connect unary answers errors with an HTTP status and a JSON body naming the code. */
function connectCodeOf(answer: RawRpcAnswer): number {
  const names: Record<string, number> = { invalid_argument: 3, deadline_exceeded: 4, resource_exhausted: 8, unauthenticated: 16 };
  return names[(JSON.parse(answer.body.toString()) as { code: string }).code]!;
}

describe("a caller's deadline", () => {
  it("over gRPC with grpc-js's own deadline: DEADLINE_EXCEEDED, no sooner than the deadline", async () => {
    const client = createGrpcJsClient(server.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", key);
    const started = Date.now();
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      client.Moderate({ input: [{ type: "image", base64: PNG_DATA_URI, text: "" }], analyze_images: true }, metadata, { deadline: Date.now() + 400 }, (e: grpc.ServiceError) => resolve(e));
    });
    client.close();
    expect(error.code).toBe(DEADLINE_EXCEEDED);
    // grpc-js also gives up on its own at the deadline: the server's answer is what carries the code.
    if (error.metadata.get("x-error-code").length > 0) expect(error.metadata.get("x-error-code")).toEqual(["deadline_exceeded"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it.each([
    ["gRPC (h2c)", () => postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key, "grpc-timeout": "300m" }, envelope(toBinary(ModerateRequestSchema, SLOW)))],
    ["gRPC-Web", () => postH1(server.httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": key, "grpc-timeout": "300m" }, envelope(toBinary(ModerateRequestSchema, SLOW)))],
    ["Connect", () => postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": key, "connect-timeout-ms": "300" }, toBinary(ModerateRequestSchema, SLOW))],
  ])("over %s: the server answers deadline_exceeded, signed over the request", async (_name, send) => {
    const answer = await send();
    const message = await expectSignedRefusal(answer, DEADLINE_EXCEEDED, "deadline_exceeded", canonicalMessageBytes(ModerateRequestSchema, SLOW));
    expect(message).toMatch(/deadline .* passed before the answer was ready/);
    if (answer.grpcStatus === undefined) expect(answer.httpStatus).toBe(504);
  });

  it("does not count a call answered deadline_exceeded in the caller's usage", async () => {
    const { key: own, accountId } = await server.createAccount("enterprise", 1_000_000);
    // Ten long texts: tens of milliseconds of scoring, far past a 1 ms deadline.
    const long = create(ModerateRequestSchema, { input: Array.from({ length: 10 }, (_, i) => ({ type: "text", text: `${"a fairly ordinary word ".repeat(430)}${i}` })) });
    const answer = await postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": own, "connect-timeout-ms": "1" }, toBinary(ModerateRequestSchema, long));
    expect(answer.httpStatus).toBe(504);
    // The scoring runs out after the answer; its result must not be metered.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.ctx.meter.flush();
    const usage = await server.ctx.usage.read(accountId, "day", 0, Date.now() + 86_400_000);
    expect(usage.totals.requests).toBe(0);
  });

  it("leaves a call that finishes in time alone", async () => {
    const grpcAnswer = await postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key, "grpc-timeout": "20S" }, envelope(toBinary(ModerateRequestSchema, HELLO)));
    expect(grpcAnswer.grpcStatus).toBe(0);
    const connectAnswer = await postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": key, "connect-timeout-ms": "20000" }, toBinary(ModerateRequestSchema, HELLO));
    expect(connectAnswer.httpStatus).toBe(200);
  });

  it("treats a deadline longer than a timer holds (about 24.8 days) as none, instead of failing at once", async () => {
    // Node shortens a longer setTimeout to 1 ms: "99999999S" (what clients send for no deadline) failed at once.
    for (const grpcTimeout of ["99999999S", "596524H", "2147484S"]) {
      const grpcAnswer = await postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key, "grpc-timeout": grpcTimeout }, envelope(toBinary(ModerateRequestSchema, HELLO)));
      expect(grpcAnswer.grpcStatus, grpcTimeout).toBe(0);
    }
    const webAnswer = await postH1(server.httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": key, "grpc-timeout": "99999999H" }, envelope(toBinary(ModerateRequestSchema, HELLO)));
    expect(webAnswer.grpcStatus).toBe(0);
    for (const ms of ["2147483648", "9999999999"]) {
      const connectAnswer = await postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": key, "connect-timeout-ms": ms }, toBinary(ModerateRequestSchema, HELLO));
      expect(connectAnswer.httpStatus, ms).toBe(200);
    }
  });

  it.each([
    ["grpc-timeout over gRPC", () => postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key, "grpc-timeout": "soon" }, envelope(toBinary(ModerateRequestSchema, HELLO))), /grpc-timeout header "soon" is malformed/],
    ["grpc-timeout over gRPC-Web", () => postH1(server.httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": key, "grpc-timeout": "123456789S" }, envelope(toBinary(ModerateRequestSchema, HELLO))), /grpc-timeout header "123456789S" is malformed/],
    ["connect-timeout-ms over Connect", () => postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": key, "connect-timeout-ms": "1.5" }, toBinary(ModerateRequestSchema, HELLO)), /connect-timeout-ms header "1.5" is malformed/],
  ])("a malformed %s is invalid_request with x-error-code and a signature", async (_name, send, words) => {
    const message = await expectSignedRefusal(await send(), GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array());
    expect(message).toMatch(words);
  });
});

describe("a caller's deadline with scoring on the event loop (WORKER_THREADS=0)", () => {
  let inline: TestServer;
  beforeAll(async () => {
    inline = await startTestServer({ env: { WORKER_THREADS: "0" } });
  }, 60_000);
  afterAll(async () => {
    await inline?.close();
  });

  it("refuses an answer finished past the deadline, and does not meter it (it was 200, and counted)", async () => {
    const { key: own, accountId } = await inline.createAccount("enterprise", 1_000_000);
    // Ten long texts: tens of milliseconds of scoring, which holds Connect's deadline timer back.
    const long = create(ModerateRequestSchema, { input: Array.from({ length: 10 }, (_, i) => ({ type: "text", text: `${"a fairly ordinary word ".repeat(430)}${i}` })) });
    const bytes = toBinary(ModerateRequestSchema, long);
    const connect = await postH1(inline.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": own, "connect-timeout-ms": "5" }, bytes);
    expect({ status: connect.httpStatus, code: connect.metadata["x-error-code"] }).toEqual({ status: 504, code: "deadline_exceeded" });
    const grpcAnswer = await postH2(inline.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": own, "grpc-timeout": "5m" }, envelope(bytes));
    expect({ status: grpcAnswer.grpcStatus, code: grpcAnswer.metadata["x-error-code"] }).toEqual({ status: DEADLINE_EXCEEDED, code: "deadline_exceeded" });
    await inline.ctx.meter.flush();
    expect((await inline.ctx.usage.read(accountId, "day", 0, Date.now() + 86_400_000)).totals.requests).toBe(0);
    // A deadline the scoring fits in is still answered, and counted.
    const inTime = await postH1(inline.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": own, "connect-timeout-ms": "20000" }, bytes);
    expect(inTime.httpStatus).toBe(200);
    await inline.ctx.meter.flush();
    expect((await inline.ctx.usage.read(accountId, "day", 0, Date.now() + 86_400_000)).totals.requests).toBe(1);
  });
});

describe("a caller's deadline while its answer is being counted", () => {
  // With METERING_FSYNC=always the count waits for the journal's fdatasync: a deadline passing in
  // that wait refused answers already counted (8 of 640 calls in an audit).
  it("delivers the answer, late, instead of refusing one it has counted", async () => {
    const { key: own, accountId } = await server.createAccount("enterprise", 1_000_000);
    const meter = server.ctx.meter;
    const record = meter.record;
    meter.record = async (...args: Parameters<typeof record>) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return record.apply(meter, args);
    };
    try {
      const answer = await postH1(server.httpUrl, PATH, { "content-type": "application/proto", "x-api-key": own, "connect-timeout-ms": "150" }, toBinary(ModerateRequestSchema, HELLO));
      expect(answer.httpStatus).toBe(200);
    } finally {
      meter.record = record;
    }
    await meter.flush();
    expect((await server.ctx.usage.read(accountId, "day", 0, Date.now() + 86_400_000)).totals.requests).toBe(1);
  });
});

describe("bytes after the one message of a unary call", () => {
  const message = toBinary(ModerateRequestSchema, HELLO);
  it.each([
    ["garbage", Buffer.concat([envelope(message), Buffer.from([1, 2, 3])]), /3 bytes follow the message/],
    ["a second message", Buffer.concat([envelope(message), envelope(message)]), new RegExp(`${5 + message.length} bytes follow the message`)],
  ])("over gRPC (%s): invalid_request with x-error-code and a signature", async (_name, body, words) => {
    const answer = await postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key }, body);
    expect(await expectSignedRefusal(answer, GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array())).toMatch(words);
  });

  it("over gRPC-Web: the same", async () => {
    const body = Buffer.concat([envelope(message), Buffer.from([9])]);
    const answer = await postH1(server.httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": key }, body);
    expect(await expectSignedRefusal(answer, GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array())).toMatch(/1 bytes follow the message/);
  });

  it.each(["80", "02", "81"])("a message flagged 0x%s (not 0, or 1: compressed) over gRPC and gRPC-Web: invalid_request, signed", async (flags) => {
    const body = envelope(message);
    body[0] = Number.parseInt(flags, 16);
    const words = new RegExp(`flags byte is 0x${flags}`);
    const grpcAnswer = await postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "x-api-key": key }, body);
    expect(await expectSignedRefusal(grpcAnswer, GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array())).toMatch(words);
    const webAnswer = await postH1(server.httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": key }, body);
    expect(await expectSignedRefusal(webAnswer, GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array())).toMatch(words);
  });

  it("without a key, auth answers first (signed over an empty request: the body was not decoded)", async () => {
    const answer = await postH2(server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers" }, Buffer.concat([envelope(message), Buffer.from([1])]));
    await expectSignedRefusal(answer, GRPC.UNAUTHENTICATED, "missing_api_key", new Uint8Array());
  });
});

describe("health and reflection given damaged input", () => {
  it("Health.Check: INVALID_ARGUMENT with invalid_request, signed, not INTERNAL", async () => {
    // Field 1 (service) announced as 16 bytes long, with 1 byte present.
    const answer = await postH2(server.grpcUrl, "/grpc.health.v1.Health/Check", { "content-type": "application/grpc", te: "trailers" }, envelope(new Uint8Array([0x0a, 0x10, 0x61])));
    expect(await expectSignedRefusal(answer, GRPC.INVALID_ARGUMENT, "invalid_request", new Uint8Array())).toMatch(/not a valid grpc\.health\.v1\.HealthCheckRequest message/);
  });

  it.each(["v1", "v1alpha"])("%s: INVALID_ARGUMENT with invalid_request, not INTERNAL", async (version) => {
    // Field 3 (file_by_filename) announced as 16 bytes long, with 1 byte present.
    const damaged = envelope(new Uint8Array([0x1a, 0x10, 0x61]));
    const answer = await postH2(server.grpcUrl, `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, { "content-type": "application/grpc", te: "trailers" }, damaged);
    expect(answer.grpcStatus).toBe(GRPC.INVALID_ARGUMENT);
    expect(answer.metadata["x-error-code"]).toBe("invalid_request");
    expect(decodeURIComponent(answer.metadata["grpc-message"] ?? "")).toMatch(/^The request is not a valid grpc\.reflection\.v1(alpha)?\.ServerReflectionRequest message/);
  });
});

describe("HTTP/2 connection limits", () => {
  it("announces at most 1,000 concurrent streams per connection (less where one address's share is less), and a client past it waits for a free stream", async () => {
    const session = http2.connect(server.grpcUrl);
    await new Promise<void>((resolve, reject) => {
      session.once("remoteSettings", () => resolve());
      session.once("error", reject);
    });
    const share = perAddressStreams(server.ctx.config.http2MaxStreams, server.ctx.config.connectionLimits);
    expect(session.remoteSettings.maxConcurrentStreams).toBe(Math.min(MAX_STREAMS_PER_CONNECTION, share));
    session.close();
    // One connection with more calls in flight than the limit: all are answered.
    const health = createClient(Health, createGrpcTransport({ baseUrl: server.grpcUrl }));
    const answers = await Promise.all(Array.from({ length: MAX_STREAMS_PER_CONNECTION + 50 }, () => health.check({ service: "" })));
    expect(answers.every((answer) => answer.status === HealthStatus.SERVING)).toBe(true);
  }, 60_000);
});
