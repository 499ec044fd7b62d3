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
    const server = await startTestServer({ env: { VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "slow", VISION_TIMEOUT_MS: "60000" } });
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
  }, 30_000);
});
