import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { SHARED_BODY_BYTES } from "../../src/base/body-buffer.js";
import { CallerHungUpError, readBody } from "../../src/http/read-body.js";

/** `length` bytes of a repeating pattern, so a misplaced chunk shows. */
function patterned(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 7 + (i >> 10)) & 0xff;
  return bytes;
}

/** Writes `body` in chunks of 64 KiB (as a socket delivers it) and ends the stream. */
function sendInChunks(stream: PassThrough, body: Buffer): void {
  for (let at = 0; at < body.length; at += 65_536) stream.write(body.subarray(at, at + 65_536));
  stream.end();
}

describe("readBody", () => {
  it("reads a body whole, or to its end without holding it past `keep`", async () => {
    const small = new PassThrough();
    small.end(Buffer.from("hello"));
    expect(Buffer.from((await readBody(small, 100, undefined))!).toString()).toBe("hello");
    const long = new PassThrough();
    const read = readBody(long, 100, undefined, 4);
    long.end(Buffer.from("hello"));
    expect(await read).toBeUndefined();
    expect(long.readableEnded).toBe(true);
  });

  // Large announced bodies are written into one shared buffer as they arrive (no copy of the
  // whole at the end, none to hand it to a compute worker); the bytes must be exactly the sent ones.
  it("reads a large announced body into shared memory, byte for byte", async () => {
    const body = patterned(SHARED_BODY_BYTES + 12_345);
    const stream = new PassThrough();
    const read = readBody(stream, 10 * SHARED_BODY_BYTES, body.length);
    sendInChunks(stream, body);
    const bytes = (await read)!;
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Buffer.compare(Buffer.from(bytes), body)).toBe(0);
  });

  // Content-Length is the caller's word; HTTP/2 does not hold a stream's data to it.
  it.each([["more", 100_000], ["fewer", -100_000]])("reads a body of %s bytes than it announced exactly as sent", async (_name, difference) => {
    const body = patterned(SHARED_BODY_BYTES + 500_000);
    const stream = new PassThrough();
    const read = readBody(stream, 10 * SHARED_BODY_BYTES, body.length - difference);
    sendInChunks(stream, body);
    expect(Buffer.compare(Buffer.from((await read)!), body)).toBe(0);
  });

  it("refuses a body past the limit", async () => {
    const stream = new PassThrough();
    const read = readBody(stream, 4, undefined);
    stream.write(Buffer.from("hello"));
    await expect(read).rejects.toMatchObject({ code: "payload_too_large" });
  });

  // The JSON routes look the key up before reading: a caller gone meanwhile left a stream that
  // emits nothing more, and the read waited forever.
  it("rejects at once when the stream was destroyed before the read began", async () => {
    const stream = new PassThrough();
    stream.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBody(stream, 100, undefined)).rejects.toBeInstanceOf(CallerHungUpError);
  });
});
