import http2 from "node:http2";
import net from "node:net";
import { describe, expect, it } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { parseExposition, valueOf } from "../observability/scrape.js";
import { createGrpcJsClient } from "../support/protocol-clients.js";
import { accountShareOf, createHeldBodies } from "../../src/base/held-bodies.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { type TestServer, useServerWithKey } from "../support/test-server.js";

// The process's bound on request bodies held at once (base/held-bodies.ts), here 1 MiB: a body
// still arriving holds its bytes, and one that would pass the bound is refused, 503 with
// Retry-After, on the JSON route and over Connect alike; once the first is answered, its bytes
// are free again.
const context = useServerWithKey({ env: { HELD_BODIES_MAX_MB: "1" } });

/** A JSON body of about `bytes` bytes: one text item (too long to judge, refused once parsed). */
const bodyOf = (bytes: number) => JSON.stringify({ input: [{ type: "text", text: "x".repeat(bytes - 40) }] });

/** Sends a request's head and the first `sent` bytes of `body`, then waits; finish() sends the rest and reads the answer's status. */
async function slowUpload(path: string, key: string, body: string, sent: number, server: TestServer = context.server) {
  const url = new URL(server.httpUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  let answer = "";
  socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
  socket.write(body.slice(0, sent));
  return {
    abort: () => socket.destroy(),
    async finish(): Promise<number> {
      socket.write(body.slice(sent)); // not end(): a half-closed connection reads as a caller gone
      await new Promise((resolve) => socket.once("close", resolve));
      if (!answer) throw new Error("no answer: the connection closed");
      return Number(answer.split(" ")[1]);
    },
  };
}

/** Waits until the server holds `bytes` (the slow upload's part has been read). */
async function untilHeld(bytes: number, server: TestServer = context.server): Promise<void> {
  for (let waited = 0; server.ctx.heldBodies.held < bytes; waited += 20) {
    if (waited > 10_000) throw new Error(`held ${server.ctx.heldBodies.held} bytes, not ${bytes}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const post = (path: string, key: string, body: string, server: TestServer = context.server) =>
  fetch(`${server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });

describe("the bound on request bodies held at once", () => {
  for (const path of ["/v1/moderate", "/moderation.v1.ModerationService/Moderate"]) {
    it(`refuses a body past it while another is held, and takes it once that one is answered (${path})`, async () => {
      const { key } = context;
      const first = await slowUpload(path, key, bodyOf(900_000), 800_000);
      await untilHeld(800_000);
      const refused = await post(path, key, bodyOf(400_000));
      expect(refused?.status).toBe(503);
      expect(refused?.headers.get("x-error-code")).toBe("service_unavailable");
      expect(refused?.headers.get("retry-after")).toBe("1");
      const message = "The server holds as many request bodies as its memory bound allows; retry shortly.";
      // The route's own error shape: the API's on the JSON route, Connect's over Connect.
      expect(await refused?.json()).toMatchObject(path === "/v1/moderate" ? { error: { code: "service_unavailable", message } } : { code: "unavailable", message });

      expect(await first.finish()).toBe(400); // answered (text_too_long): its bytes are given back
      const after = await post(path, key, bodyOf(400_000));
      expect(after.status).toBe(400);
      expect(context.server.ctx.heldBodies.held).toBe(0);
    });
  }

  it("answers 413, not a 503 to retry forever, for a body that alone is past the bound", async () => {
    const response = await post("/v1/moderate", context.key, bodyOf(1_200_000));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: "payload_too_large", message: "The request body is larger than this server's bound on request bodies held at once (HELD_BODIES_MAX_MB)." } });
    await untilHeldAtMost(0);
  });

  it("gives a refused body's bytes back at once on HTTP/2, where its stream may stay open after the answer", async () => {
    const { key } = context;
    const session = http2.connect(context.server.grpcUrl);
    const open = (body: string) => session.request({ ":method": "POST", ":path": "/moderation.v1.ModerationService/Moderate", "content-type": "application/json", "x-api-key": key, "content-length": String(Buffer.byteLength(body)) });
    try {
      const firstBody = bodyOf(900_000);
      const first = open(firstBody);
      first.write(firstBody.slice(0, 800_000));
      await untilHeld(800_000);
      const second = open(bodyOf(400_000));
      const status = new Promise<number>((resolve) => second.once("response", (headers) => resolve(Number(headers[":status"]))));
      second.end(bodyOf(400_000));
      expect(await status).toBe(503);
      // Only the first body is held now, whatever became of the refused stream.
      expect(context.server.ctx.heldBodies.held).toBe(800_000);
      const firstStatus = new Promise<number>((resolve) => first.once("response", (headers) => resolve(Number(headers[":status"]))));
      first.end(firstBody.slice(800_000));
      expect(await firstStatus).toBe(400);
      second.close();
      await untilHeldAtMost(0);
    } finally {
      // Closed gracefully with both answers unread: the server's shutdown (afterAll) must still
      // end, at its grace (on Node 24 it waited for good).
      session.close();
    }
  });
});

// One account's share of the bound (a quarter by default, here 600 KB of 1 MiB): its slow
// uploads could hold the whole bound, and every other account's calls were refused.
const shared = useServerWithKey({ overrides: { heldBodies: createHeldBodies(2 ** 20, 600_000) } });

describe("one account's share of the bound", () => {
  it("is a quarter of the bound, but never less than one maximal request nor more than the bound", () => {
    expect(accountShareOf(2048 * 2 ** 20)).toBe(512 * 2 ** 20);
    expect(accountShareOf(128 * 2 ** 20)).toBe(MAX_REQUEST_BYTES);
    expect(accountShareOf(2 ** 20)).toBe(2 ** 20);
    // The server's bound takes the share (HELD_BODIES_MAX_MB=1 here: the whole MiB).
    const hold = context.server.ctx.heldBodies.hold("acct_share_check");
    try {
      expect(hold.take(2 ** 20)).toBe("taken");
    } finally {
      hold.release();
    }
  });

  for (const path of ["/v1/moderate", "/moderation.v1.ModerationService/Moderate"]) {
    it(`refuses that account's next body past its share while another account's is taken (${path})`, async () => {
      const other = (await shared.server.createAccount("enterprise", 1_000)).key;
      const first = await slowUpload(path, shared.key, bodyOf(600_000), 500_000, shared.server);
      await untilHeld(500_000, shared.server);
      const refused = await post(path, shared.key, bodyOf(200_000), shared.server);
      expect({ status: refused.status, code: refused.headers.get("x-error-code"), retryAfter: refused.headers.get("retry-after") }).toEqual({ status: 503, code: "service_unavailable", retryAfter: "1" });
      const message = "This account's requests still arriving fill its share of the server's bound on request bodies held at once; retry once some have finished.";
      expect(await refused.json()).toMatchObject(path === "/v1/moderate" ? { error: { message } } : { message });
      // The bound itself has room: another account's body of the same size is read and judged.
      expect((await post(path, other, bodyOf(200_000), shared.server)).status).toBe(400); // text_too_long
      expect(await first.finish()).toBe(400);
      expect(shared.server.ctx.heldBodies.held).toBe(0);
      // Its share is free again.
      expect((await post(path, shared.key, bodyOf(200_000), shared.server)).status).toBe(400);
    });
  }
});

describe("an HTTP/2 stream answered before its body was read", () => {
  it("is reset with NO_ERROR once the whole answer is sent, so it frees its stream slot (1,000 refused grpc-js calls wedged the channel)", async () => {
    const session = http2.connect(context.server.grpcUrl);
    try {
      const body = bodyOf(2_000_000);
      const stream = session.request({ ":method": "POST", ":path": "/moderation.v1.ModerationService/Moderate", "content-type": "application/json", "x-api-key": context.key, "content-length": String(Buffer.byteLength(body)) });
      stream.write(body.slice(0, 1_200_000)); // past the bound, and never ended
      let answer = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (answer += chunk));
      const status = new Promise<number>((resolve) => stream.once("response", (headers) => resolve(Number(headers[":status"]))));
      const closed = new Promise<number>((resolve) => stream.once("close", () => resolve(stream.rstCode ?? -1)));
      expect(await status).toBe(429); // Connect's status for RESOURCE_EXHAUSTED (payload_too_large)
      expect(await closed).toBe(http2.constants.NGHTTP2_NO_ERROR);
      // The answer arrived whole before the reset.
      expect(JSON.parse(answer)).toMatchObject({ code: "resource_exhausted" });
    } finally {
      session.close();
    }
  });

  it("counts a gRPC call refused for the bound while its upload goes on (it was neither counted nor logged)", async () => {
    const held = await slowUpload("/v1/moderate", context.key, bodyOf(900_000), 800_000);
    await untilHeld(800_000);
    const session = http2.connect(context.server.grpcUrl);
    try {
      const stream = session.request({ ":method": "POST", ":path": "/moderation.v1.ModerationService/Moderate", "content-type": "application/grpc", te: "trailers", "x-api-key": context.key });
      stream.on("error", () => undefined);
      const message = Buffer.alloc(300_005);
      message.writeUInt32BE(300_000, 1);
      stream.write(message); // never ended
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once("trailers", resolve));
      expect(trailers["grpc-status"]).toBe("14");
      await expect.poll(async () => valueOf(parseExposition(await context.server.ctx.metrics.render()), "moderation_requests_total", { route: "/moderation.v1.ModerationService/Moderate", protocol: "grpc", status: "200", code: "service_unavailable" }), { timeout: 10_000 }).toBe(1);
    } finally {
      session.destroy();
      expect(await held.finish()).toBe(400);
    }
  });

  it("keeps a refused gRPC call's status and trailers whole", async () => {
    const client = createGrpcJsClient(context.server.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", context.key);
    try {
      for (let i = 0; i < 3; i++) {
        const error = await new Promise<grpc.ServiceError | null>((resolve) => {
          client.Moderate({ input: [{ type: "text", text: "x".repeat(1_200_000), base64: "" }] }, metadata, { deadline: Date.now() + 20_000 }, resolve);
        });
        expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
        expect(error?.metadata.get("x-error-code")).toEqual(["payload_too_large"]);
      }
    } finally {
      client.close();
    }
  });
});

// A body of 1 MiB or more whose length is announced is written into one buffer reserved for that
// length (base/body-buffer.ts): the reservation counts against the bound before its bytes come,
// or a caller announcing 69 MB and sending nothing held memory the bound never saw.
const roomy = useServerWithKey({ env: { HELD_BODIES_MAX_MB: "8" } });

describe("a large body's announced length", () => {
  for (const path of ["/v1/moderate", "/moderation.v1.ModerationService/Moderate"]) {
    it(`is held as soon as its buffer is reserved, and given back once answered (${path})`, async () => {
      const body = bodyOf(3 * 2 ** 20);
      const upload = await slowUpload(path, roomy.key, body, 100, roomy.server);
      await untilHeld(Buffer.byteLength(body), roomy.server);
      // Another body that would pass the bound with it is refused while only 100 bytes have come.
      expect((await post(path, roomy.key, bodyOf(6 * 2 ** 20), roomy.server)).status).toBe(503);
      expect(await upload.finish()).toBe(400); // one text item too long to judge
      for (let waited = 0; roomy.server.ctx.heldBodies.held > 0; waited += 20) {
        if (waited > 10_000) throw new Error(`still held ${roomy.server.ctx.heldBodies.held} bytes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  }

  it("reserves nothing for a caller without a live key (the server runs in this process: its buffers are ours)", async () => {
    const before = process.memoryUsage().arrayBuffers;
    const upload = await slowUpload("/moderation.v1.ModerationService/Moderate", "mod_not_a_key", bodyOf(40 * 2 ** 20), 100, roomy.server);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 2 ** 20);
    expect(roomy.server.ctx.heldBodies.held).toBe(0);
    upload.abort();
  });
});

/** Waits until the server holds at most `bytes`. */
async function untilHeldAtMost(bytes: number): Promise<void> {
  for (let waited = 0; context.server.ctx.heldBodies.held > bytes; waited += 20) {
    if (waited > 10_000) throw new Error(`still held ${context.server.ctx.heldBodies.held} bytes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
