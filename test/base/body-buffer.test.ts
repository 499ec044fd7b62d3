import { describe, expect, it } from "vitest";
import { BodyBuffer, SHARED_BODY_BYTES } from "../../src/base/body-buffer.js";
import { createHeldBodies } from "../../src/base/held-bodies.js";
import { seededRandom } from "../support/seeded-random.js";

/** `body` cut into pieces of the sizes `sizeOf` picks, each a view into one read buffer, as sockets hand them over. */
function pieces(body: Buffer, sizeOf: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const size = Math.min(body.length - at, Math.max(1, sizeOf()));
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

describe("BodyBuffer", () => {
  it("gives back the body exactly, whatever the chunks' sizes, with or without its length known", () => {
    const random = seededRandom(7);
    const body = Buffer.from(Array.from({ length: 300_000 }, () => Math.floor(random() * 256)));
    for (const sizeOf of [() => 1, () => 1 + Math.floor(random() * 20), () => Math.floor(random() * 9_000), () => 70_000]) {
      for (const known of [false, true]) {
        const buffer = new BodyBuffer();
        if (known) buffer.expect(body.length);
        for (const chunk of pieces(body, sizeOf)) expect(buffer.push(chunk)).toBe("taken");
        expect(Buffer.from(buffer.bytes()).equals(body)).toBe(true);
      }
    }
    // Known and long: written into one shared buffer as it comes.
    const long = Buffer.alloc(SHARED_BODY_BYTES + 5, 3);
    const shared = new BodyBuffer();
    shared.push(long.subarray(0, 10));
    shared.push(long.subarray(10, 11));
    expect(shared.expect(long.length)).toBe("taken");
    for (const chunk of pieces(long.subarray(11), () => 5_000)) shared.push(chunk);
    expect(Buffer.from(shared.bytes()).equals(long)).toBe(true);
  });

  // Found by an audit: a body sent a byte per chunk kept one Buffer per byte, each pinning the
  // read buffer it was cut from (about 285 bytes of memory per byte; 4 MB so sent took 1.1 GB).
  it("copies small chunks after the first, so it keeps no view into the buffers they were cut from", () => {
    const source = Buffer.from("abcdefghijklmnopqrstuvwxyz");
    const buffer = new BodyBuffer();
    for (const chunk of pieces(source, () => 1)) buffer.push(chunk);
    source.fill(0x2e, 1); // the read buffers are reused for later reads
    expect(Buffer.from(buffer.bytes()).toString()).toBe("abcdefghijklmnopqrstuvwxyz");
  });

  it("counts each byte once against the hold and keeps nothing the hold refuses", () => {
    const held = createHeldBodies(100);
    const buffer = new BodyBuffer(held.hold("acct"));
    for (let i = 0; i < 100; i++) expect(buffer.push(Buffer.from("x"))).toBe("taken");
    expect(held.held).toBe(100);
    expect(buffer.push(Buffer.from("y"))).toBe("never");
    expect(buffer.bytes()).toHaveLength(100);
  });
});

describe("BodyBuffer's memory", () => {
  // Found by a review: a small chunk between large ones started a 64 KiB block that the next
  // large chunk closed, and a view of its few used bytes pinned all of it (16 MB sent, 262 MB held).
  it("holds about what was sent when large and one-byte chunks take turns", () => {
    const source = Buffer.alloc(4_000 * 4_097, 0x61);
    const chunks = pieces(source, (() => {
      let large = false;
      return () => ((large = !large) ? 4_096 : 1);
    })());
    const before = process.memoryUsage().arrayBuffers;
    const buffer = new BodyBuffer();
    for (const chunk of chunks) buffer.push(chunk);
    const held = process.memoryUsage().arrayBuffers - before;
    expect(held).toBeLessThan(2 * source.length);
    expect(Buffer.from(buffer.bytes()).equals(source)).toBe(true);
  });
});
