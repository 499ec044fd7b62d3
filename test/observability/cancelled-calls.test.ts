import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { useServerWithKey } from "../support/test-server.js";
import { scrape, type Sample } from "./scrape.js";

// A call the client cancels before its answer is no answered request: /metrics and the request
// log name it "cancelled" (status 499, the usual "client closed request"), as usage leaves it out.
const MODERATE = "/moderation.v1.ModerationService/Moderate";

describe("a gRPC call cancelled by its client", () => {
  const file = useServerWithKey();

  it("is counted as cancelled, not as a 200 with no code", async () => {
    const client = new grpc.Client(file.server.grpcUrl.replace("http://", ""), grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", file.key);
    // Field 1 (input), each an InputItem with type "text" (1) and a long text (2): about half a second of work.
    const text = Buffer.from("you are a terrible person and everyone knows it. ".repeat(200).slice(0, 10_000));
    const item = Buffer.concat([Buffer.from([0x0a, 4]), Buffer.from("text"), Buffer.from([0x12]), varint(text.length), text]);
    const request = Buffer.concat(Array.from({ length: 10 }, () => Buffer.concat([Buffer.from([0x0a]), varint(item.length), item])));
    // Connected first, and cancelled only once the server holds the body (it is judging it): on a
    // loaded machine a cancel 30 ms after the call could come before the call was even sent.
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 10_000, (error) => (error ? reject(error) : resolve())));
    const call = client.makeUnaryRequest(MODERATE, (b: Buffer) => b, (b: Buffer) => b, request, metadata, () => undefined);
    for (let waited = 0; file.server.ctx.heldBodies.held === 0 && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    call.cancel();
    client.close();
    // Counted once the server's own work on it ends (the texts are still classified).
    let moderate: Sample[] = [];
    for (let waited = 0; moderate.length === 0 && waited < 25_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      moderate = (await scrape(file.server.httpUrl)).samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === MODERATE);
    }
    expect(moderate.map((s) => s.labels)).toEqual([{ route: MODERATE, protocol: "grpc", status: "499", code: "cancelled" }]);
  }, 40_000);
});

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
