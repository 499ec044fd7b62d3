import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { dataUri, png } from "../images/fixtures.js";
import { startFakeOpenAiServer, status, type FakeOpenAiServer } from "../providers/fake-openai-server.js";
import { callJson } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { scrape, valueOf, type Sample } from "./scrape.js";

const MODERATE = "/moderation.v1.ModerationService/Moderate";
const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "see you at the meeting tomorrow" }] });

let server: TestServer;
let vision: FakeOpenAiServer;
let key: string;
let samples: Sample[];
let contentType: string | null;

/**
 * Real traffic over every protocol (successes, a 401, a 429, a refused content type, an unknown
 * path, images with a failing vision provider), then one scrape of GET /metrics.
 */
beforeAll(async () => {
  vision = await startFakeOpenAiServer(status(500));
  server = await startTestServer({
    env: { WORKER_THREADS: "1", VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "vision-metrics", VISION_MAX_RETRIES: "0", VISION_CIRCUIT_FAILURES: "1" },
  });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
  const limited = await server.createAccount("enterprise", 1);
  const body = { input: [{ type: "text", text: "see you at the meeting tomorrow" }] };

  expect((await callJson(server.httpUrl, body, key)).ok).toBe(true);
  expect((await callJson(server.httpUrl, { input: [body.input[0], { type: "text", text: "and the day after" }] }, key)).ok).toBe(true);
  expect(await callJson(server.httpUrl, body)).toMatchObject({ ok: false, status: 401, code: "missing_api_key" });
  expect((await callJson(server.httpUrl, body, limited.key)).ok).toBe(true);
  expect(await callJson(server.httpUrl, body, limited.key)).toMatchObject({ ok: false, status: 429, code: "rate_limit_exceeded" });
  const headers = { "x-api-key": key };
  await createClient(ModerationService, createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" })).moderate(request, { headers });
  await createClient(ModerationService, createGrpcWebTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" })).moderate(request, { headers });
  await createClient(ModerationService, createGrpcTransport({ baseUrl: server.grpcUrl })).moderate(request, { headers });
  await expect(createClient(ModerationService, createGrpcTransport({ baseUrl: server.grpcUrl })).moderate(request, { headers: { "x-api-key": "mk_nope" } }))
    .rejects.toThrow();
  expect((await fetch(`${server.httpUrl}${MODERATE}`, { method: "POST", headers: { ...headers, "content-type": "text/plain" }, body: "{}" })).status).toBe(415);
  expect((await fetch(`${server.httpUrl}/no/such/path`)).status).toBe(404);
  // A served path asked with another method: under its route, not as an unknown path.
  expect((await fetch(`${server.httpUrl}/readyz`, { method: "DELETE" })).status).toBe(405);
  // A gRPC-Web call to a method the server does not have: UNIMPLEMENTED, counted under gRPC-Web.
  expect((await fetch(`${server.httpUrl}/moderation.v1.ModerationService/Nope`, { method: "POST", headers: { "content-type": "application/grpc-web+proto" }, body: new Uint8Array(5) })).headers.get("grpc-status")).toBe("12");
  // One image, its embedded model run, and a vision provider that fails (the circuit opens at once).
  const image = { input: [{ type: "image", base64: dataUri("image/png", await png(64, 48)) }], analyze_images: true };
  expect(await callJson(server.httpUrl, image, key)).toMatchObject({ ok: false, status: 503, code: "deep_analysis_unavailable" });

  ({ samples, contentType } = await scrape(server.httpUrl));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await vision?.close();
});

const requests = (labels: Record<string, string>) => valueOf(samples, "moderation_requests_total", labels);

describe("GET /metrics after real traffic", () => {
  it("is Prometheus text", () => {
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("counts requests by route, protocol, status and error code", () => {
    expect(requests({ route: "/v1/moderate", protocol: "json", status: "200", code: "" })).toBe(3);
    expect(requests({ route: "/v1/moderate", protocol: "json", status: "401", code: "missing_api_key" })).toBe(1);
    expect(requests({ route: "/v1/moderate", protocol: "json", status: "429", code: "rate_limit_exceeded" })).toBe(1);
    expect(requests({ route: "/v1/moderate", protocol: "json", status: "503", code: "deep_analysis_unavailable" })).toBe(1);
    expect(requests({ route: MODERATE, protocol: "connect", status: "200", code: "" })).toBe(1);
    expect(requests({ route: MODERATE, protocol: "grpc-web", status: "200", code: "" })).toBe(1);
    expect(requests({ route: MODERATE, protocol: "grpc", status: "200", code: "" })).toBe(1);
    // gRPC answers errors with HTTP 200 and the status in trailers: the code label tells them apart.
    expect(requests({ route: MODERATE, protocol: "grpc", status: "200", code: "invalid_api_key" })).toBe(1);
    // Refused before any protocol is chosen: Connect is the fallback name, as for any non-gRPC content type.
    expect(requests({ route: MODERATE, protocol: "connect", status: "415", code: "unsupported_media_type" })).toBe(1);
    expect(requests({ route: "unmatched", status: "404", code: "not_found" })).toBe(1);
    expect(requests({ route: "/readyz", protocol: "http", status: "405", code: "method_not_allowed" })).toBe(1);
    expect(requests({ route: "unmatched", status: "405" })).toBe(0);
    expect(requests({ route: "unmatched", protocol: "grpc-web", status: "200", code: "unknown_method" })).toBe(1);
  });

  it("has latency histograms per route and protocol", () => {
    const labels = { route: "/v1/moderate", protocol: "json" };
    expect(valueOf(samples, "moderation_request_duration_seconds_count", labels)).toBe(6);
    expect(valueOf(samples, "moderation_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(6);
    expect(valueOf(samples, "moderation_request_duration_seconds_sum", labels)).toBeGreaterThan(0);
    const small = valueOf(samples, "moderation_request_duration_seconds_bucket", { ...labels, le: "0.0005" });
    expect(small).toBeLessThanOrEqual(valueOf(samples, "moderation_request_duration_seconds_bucket", { ...labels, le: "10" }));
  });

  it("times the classifier per item, in the compute workers and for images", () => {
    // Texts classified: 1 + (2 items + their combined text) + 1 (the 429 is refused before) + Connect, gRPC-Web, gRPC.
    expect(valueOf(samples, "moderation_classifier_seconds_count", { kind: "text" })).toBe(8);
    expect(valueOf(samples, "moderation_classifier_seconds_sum", { kind: "text" })).toBeGreaterThan(0);
    expect(valueOf(samples, "moderation_classifier_seconds_count", { kind: "image" })).toBe(1);
  });

  it("counts rate-limit rejections", () => {
    expect(valueOf(samples, "moderation_rate_limit_rejections_total", { reason: "exceeded" })).toBe(1);
  });

  it("reports provider calls, failures and circuit state", () => {
    expect(valueOf(samples, "moderation_provider_calls_total", { provider: "openai-compatible", outcome: "http" })).toBe(1);
    expect(valueOf(samples, "moderation_provider_failures_total", { provider: "openai-compatible" })).toBe(1);
    expect(valueOf(samples, "moderation_provider_call_duration_seconds_count", { provider: "openai-compatible" })).toBe(1);
    expect(valueOf(samples, "moderation_provider_circuit_state", { provider: "openai-compatible" })).toBe(2); // open
  });

  it("reports worker queue depth and process metrics", () => {
    expect(samples.some((s) => s.name === "moderation_worker_queue_depth" && s.labels.pool === "compute")).toBe(true);
    expect(valueOf(samples, "moderation_worker_queue_depth", { pool: "image" })).toBe(0);
    expect(valueOf(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(valueOf(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === "nodejs_eventloop_lag_p99_seconds")).toBe(true);
  });
});

describe("METRICS_PORT", () => {
  it("serves /metrics on its own listener and not on the API ports", async () => {
    const separate = await startTestServer({ env: { METRICS_PORT: "0", WORKER_THREADS: "0" } });
    try {
      expect(separate.metricsUrl).toBeDefined();
      expect((await fetch(`${separate.httpUrl}/metrics`)).status).toBe(404);
      const { key: k } = await separate.createAccount("enterprise", 1_000_000);
      expect((await callJson(separate.httpUrl, { input: [{ type: "text", text: "hello" }] }, k)).ok).toBe(true);
      const scraped = await scrape(separate.metricsUrl!);
      expect(valueOf(scraped.samples, "moderation_requests_total", { route: "/v1/moderate", status: "200" })).toBe(1);
      // Classified on the event loop (no workers): timed there.
      expect(valueOf(scraped.samples, "moderation_classifier_seconds_count", { kind: "text" })).toBe(1);
      // Anything else there: the API's 404, its code in the body and in X-Error-Code as on the API ports.
      const elsewhere = await fetch(`${separate.metricsUrl}/v1/moderate`);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.headers.get("x-error-code")).toBe("not_found");
      expect((await elsewhere.json()).error.code).toBe("not_found");
    } finally {
      await separate.close();
    }
  });
});
