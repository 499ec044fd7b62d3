import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { CallerHungUpError, readBody } from "../../src/http/read-body.js";

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
