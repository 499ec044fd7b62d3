/**
 * A body at least this long, whose length is known ahead (Content-Length, or a gRPC envelope's
 * length prefix), is written chunk by chunk as it arrives into one buffer of that length in
 * shared memory: no copy of the whole body blocks the event loop at its end (Buffer.concat of a
 * 65 MB body held it 110-150 ms, most of it first touches of fresh pages), and a compute worker
 * can read it without a copy (http/json-off-thread.ts).
 */
export const SHARED_BODY_BYTES = 1024 * 1024;

/**
 * A request body as it arrives, in chunks. `expect` says how long it will be, when that is known;
 * a body that turns out longer than it said is still read exactly (HTTP/2 does not hold a stream's
 * data to its Content-Length): the chunks then take over from what was written.
 */
export class BodyBuffer {
  #chunks: Uint8Array[] = [];
  #shared: Buffer | undefined;
  #size = 0;

  /** Bytes pushed so far. */
  get size(): number {
    return this.#size;
  }

  /** The body will be `length` bytes long: a long one is written in place from now on. */
  expect(length: number): void {
    if (this.#shared !== undefined || length < SHARED_BODY_BYTES || length < this.#size) return;
    this.#shared = Buffer.from(new SharedArrayBuffer(length));
    let at = 0;
    for (const chunk of this.#chunks) {
      this.#shared.set(chunk, at);
      at += chunk.byteLength;
    }
    this.#chunks = [];
  }

  push(chunk: Uint8Array): void {
    const end = this.#size + chunk.byteLength;
    if (this.#shared !== undefined && end <= this.#shared.length) this.#shared.set(chunk, this.#size);
    else {
      if (this.#shared !== undefined) this.#chunks.push(this.#shared.subarray(0, this.#size));
      this.#shared = undefined;
      this.#chunks.push(chunk);
    }
    this.#size = end;
  }

  /** The whole body. */
  bytes(): Uint8Array {
    if (this.#shared !== undefined) return this.#shared.subarray(0, this.#size);
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
  }
}
