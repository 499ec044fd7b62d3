import http2 from "node:http2";
import net from "node:net";
import * as grpc from "@grpc/grpc-js";
import fastify, { type FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { trackForGracefulClose } from "../../src/edge/graceful-close.js";
import { PNG_DATA_URI } from "../api/error-expectations.js";
import { startFakeOpenAiServer } from "../providers/fake-openai-server.js";
import { createGrpcJsClient } from "../support/protocol-clients.js";
import { startTestServer } from "../support/test-server.js";

// A call still open when the shutdown grace ends: its caller reads UNAVAILABLE (retry elsewhere),
// not INTERNAL. A fuzzing helper saw INTERNAL ("Call ended without gRPC status") for calls that
// were waiting on the compute pool when it closed; those now answer service_unavailable.
describe("the end of the shutdown grace on HTTP/2", () => {
  it("a stream still open is dropped with its session: grpc-js reads UNAVAILABLE", async () => {
    const app = fastify({ http2: true }) as unknown as FastifyInstance;
    app.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    // A call that outlives the grace: it never answers.
    app.post("/slow.v1.Slow/Call", (_request, reply) => {
      arrived();
      reply.hijack();
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const close = trackForGracefulClose(app, 200);
    const address = app.server.address() as { port: number };
    const client = new grpc.Client(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure());
    const outcome = new Promise<grpc.ServiceError | null>((resolve) => {
      client.makeUnaryRequest("/slow.v1.Slow/Call", (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), (error) => resolve(error));
    });
    await inHandler;
    await close();
    const error = await outcome;
    client.close();
    expect(error?.code).toBe(grpc.status.UNAVAILABLE);
  });
});

describe("the service at the end of its shutdown grace", () => {
  it("a gRPC call still waiting on a vision provider gets UNAVAILABLE", async () => {
    const vision = await startFakeOpenAiServer(() => new Promise<void>(() => undefined)); // never answers
    const server = await startTestServer({ env: { VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "slow", VISION_TIMEOUT_MS: "60000", SHUTDOWN_GRACE_MS: "1000" } });
    const { key } = await server.createAccount("pro");
    const client = createGrpcJsClient(server.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", key);
    const outcome = new Promise<grpc.ServiceError | null>((resolve) => {
      client.Moderate({ input: [{ type: "image", base64: PNG_DATA_URI }], analyze_images: true }, metadata, (error: grpc.ServiceError | null) => resolve(error));
    });
    while (vision.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await server.close();
    const error = await outcome;
    client.close();
    await vision.close();
    expect(error?.code).toBe(grpc.status.UNAVAILABLE);
    // Answered by the service (its code in the trailers), not a session dropped under the call.
    expect(error?.metadata.get("x-error-code")).toEqual(["service_unavailable"]);
  }, 30_000);

  it("a JSON call still waiting on a vision provider is answered 503 service_unavailable, not reset", async () => {
    const vision = await startFakeOpenAiServer(() => new Promise<void>(() => undefined)); // never answers
    const server = await startTestServer({ env: { VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "slow", VISION_TIMEOUT_MS: "60000", SHUTDOWN_GRACE_MS: "1000" } });
    const { key } = await server.createAccount("pro");
    const answer = fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: [{ type: "image", base64: PNG_DATA_URI }], analyze_images: true }),
    }).then(async (response) => ({ status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { error?: { code: string } } }));
    while (vision.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = server.close();
    // Was ECONNRESET: the connection was cut at the grace's end with the call still running.
    expect(await answer).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "service_unavailable" } } });
    await closed;
    await vision.close();
  }, 30_000);

  it("a JSON call still waiting on a guard model is answered with the embedded verdict, not seconded", async () => {
    const guard = await startFakeOpenAiServer(() => new Promise<void>(() => undefined)); // never answers
    const server = await startTestServer({
      env: { TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_BASE_URL: guard.baseUrl, TEXT_PROVIDER_MODE: "always", TEXT_PROVIDER_TIMEOUT_MS: "60000", TEXT_PROVIDER_TOTAL_TIMEOUT_MS: "60000", SHUTDOWN_GRACE_MS: "1000" },
    });
    const { key } = await server.createAccount("pro");
    const answer = fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: [{ type: "text", text: "I will find you and hurt you" }] }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { results: { second_opinion?: { seconded: boolean } }[] } }));
    while (guard.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = server.close();
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body.results[0]!.second_opinion).toMatchObject({ seconded: false });
    await closed;
    await guard.close();
  }, 30_000);
  // Found by an audit (session 52): a body still arriving when the grace ran out (a slow upload)
  // was cut with no answer (HTTP/1.1 closed with zero bytes, HTTP/2 reset), logged as a cancel.
  it("a JSON call whose body still arrives is answered 503 service_unavailable, on HTTP/1.1 and HTTP/2", async () => {
    const server = await startTestServer({ env: { SHUTDOWN_GRACE_MS: "500" } });
    const { key } = await server.createAccount("pro");
    const body = JSON.stringify({ input: [{ type: "text", text: "hello there" }] });
    const { port } = new URL(server.httpUrl);
    // HTTP/1.1: the head and half the body, then nothing more.
    const socket = net.connect({ port: Number(port), host: "127.0.0.1" });
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const ended = new Promise((resolve) => socket.once("close", resolve));
    socket.write(`POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    // HTTP/2 (h2c, the gRPC port serves it): the same, a stream left open.
    const session = http2.connect(server.grpcUrl);
    const stream = session.request({ ":method": "POST", ":path": "/v1/moderate", "content-type": "application/json", "x-api-key": key, "content-length": String(body.length) });
    stream.write(body.slice(0, 10));
    const h2 = new Promise<{ status: number; body: string }>((resolve, reject) => {
      let status = 0;
      let text = "";
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
      stream.on("end", () => resolve({ status, body: text }));
      stream.on("error", reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.close();
    await ended;
    expect(received).toMatch(/^HTTP\/1\.1 503 /);
    expect(received.toLowerCase()).toContain("retry-after: 1");
    expect(received).toContain('"code":"service_unavailable"');
    const answer = await h2;
    session.destroy();
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "service_unavailable" } });
  }, 30_000);
});
