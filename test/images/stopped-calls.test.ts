import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { dataUri, png } from "./fixtures.js";

// Images of a call whose caller had gone (a gRPC deadline, a cancelled upload) were decoded and
// scored to the end: up to seconds of the image model for nobody, while callers still there were
// refused service_unavailable for a full queue. Now they leave the queue when the call stops.

const ITEMS = 10;
let server: TestServer;
let key: string;
let images: { type: string; base64: string }[];

beforeAll(async () => {
  // One image worker, so that most of a call's images wait for it.
  server = await startTestServer({ env: { IMAGE_WORKERS: "1" } });
  ({ key } = await server.createAccount("enterprise", 100_000));
  images = await Promise.all(Array.from({ length: ITEMS }, async (_, i) => ({ type: "image", base64: dataUri("image/png", await png(512, 512, { r: 20 * i, g: 90, b: 200 - 15 * i })) })));
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function metric(line: RegExp): Promise<number> {
  const text = await server.ctx.metrics.render();
  const found = text.split("\n").find((row) => line.test(row));
  return Number(found?.split(" ").at(-1) ?? 0);
}
const imagesScored = () => metric(/^moderation_classifier_seconds_count\{kind="image"\} /);

/** Waits until nothing of the call is queued or running on the image pool (after its decoding: up to 500 ms). */
async function settled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 200; i++) {
    if ((await metric(/^moderation_worker_queue_depth\{pool="image"\} /)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the image pool did not drain within 10 s");
}

describe("images of a call that stopped", () => {
  it("are not scored once a gRPC call's deadline has passed", async () => {
    const before = await imagesScored();
    const client = createClient(ModerationService, createGrpcTransport({ baseUrl: server.grpcUrl }));
    const call = client.moderate({ input: images }, { timeoutMs: 60, headers: { "x-api-key": key } });
    await expect(call).rejects.toSatisfy((error) => ConnectError.from(error).code === Code.DeadlineExceeded);
    await settled();
    // The one being scored when the deadline came, and maybe the next: not all ten.
    expect(await imagesScored() - before).toBeLessThanOrEqual(4);
  }, 30_000);

  it("are not scored once a JSON caller has hung up", async () => {
    const before = await imagesScored();
    const caller = new AbortController();
    const call = fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: images }), signal: caller.signal,
    });
    setTimeout(() => caller.abort(), 60);
    await expect(call).rejects.toThrow();
    await settled();
    expect(await imagesScored() - before).toBeLessThanOrEqual(4);
  }, 30_000);

  it("are all scored when nobody stops the call", async () => {
    const before = await imagesScored();
    const response = await fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: images }),
    });
    expect(response.status).toBe(200);
    expect(await imagesScored() - before).toBe(ITEMS);
  }, 30_000);
});
