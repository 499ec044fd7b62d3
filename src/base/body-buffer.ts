import type { BodyHold, Take } from "./held-bodies.js";

/**
 * A body at least this long, whose length is known ahead (Content-Length, or a gRPC envelope's
 * length prefix), is written chunk by chunk as it arrives into one buffer of that length in
 * shared memory: no copy of the whole body blocks the event loop at its end (Buffer.concat of a
 * 65 MB body held it 110-150 ms, most of it first touches of fresh pages), and a compute worker
 * can read it without a copy (http/json-off-thread.ts).
 */
export const SHARED_BODY_BYTES = 1024 * 1024;

/**
 * Chunks shorter than this, after a body's first, are copied into blocks of BLOCK_BYTES instead
 * of kept as they came: a body sent a byte per chunk (HTTP/1.1 chunked encoding, HTTP/2 DATA
 * frames) kept one Buffer per byte, each pinning the read buffer it was cut from, about 285 bytes
 * of memory per byte sent: 4 MB so sent took the server from 1.2 to 2.4 GB (found by an audit).
 */
const COPIED_CHUNK_BYTES = 4096;
const BLOCK_BYTES = 64 * 1024;

/**
 * A request body as it arrives, in chunks, each byte counted once against `hold` (the process's
 * bound on held bodies, held-bodies.ts) before it is kept. `expect` says how long it will be, when
 * that is known; a body that turns out longer than it said is still read exactly (HTTP/2 does not
 * hold a stream's data to its Content-Length): the chunks then take over from what was written.
 */
export class BodyBuffer {
  readonly #hold: BodyHold | undefined;
  #chunks: Uint8Array[] = [];
  /** The block small chunks are being copied into (COPIED_CHUNK_BYTES), and how much of it is used. */
  #block: Buffer | undefined;
  #blockUsed = 0;
  #shared: Buffer | undefined;
  #size = 0;
  /** Bytes counted against the hold so far: a reserved buffer's whole length, or the bytes kept. */
  #counted = 0;

  constructor(hold?: BodyHold) {
    this.#hold = hold;
  }

  /**
   * The body will be `length` bytes long: a long one gets a buffer of that length, written in
   * place from now on and counted against the hold whole, before its bytes come (reserved memory
   * is held memory). "taken", or why the hold refused it (then nothing is reserved).
   */
  expect(length: number): Take {
    if (this.#shared !== undefined || length < SHARED_BODY_BYTES || length < this.#size) return "taken";
    const taken = this.#count(length);
    if (taken !== "taken") return taken;
    this.#closeBlock();
    this.#shared = Buffer.from(new SharedArrayBuffer(length));
    let at = 0;
    for (const chunk of this.#chunks) {
      this.#shared.set(chunk, at);
      at += chunk.byteLength;
    }
    this.#chunks = [];
    return "taken";
  }

  /** Keeps `chunk`: "taken", or why the hold refused its bytes (then it is not kept). */
  push(chunk: Uint8Array): Take {
    const end = this.#size + chunk.byteLength;
    const taken = this.#count(end);
    if (taken !== "taken") return taken;
    if (this.#shared !== undefined && end <= this.#shared.length) this.#shared.set(chunk, this.#size);
    else {
      if (this.#shared !== undefined) this.#chunks.push(this.#shared.subarray(0, this.#size));
      this.#shared = undefined;
      this.#keep(chunk);
    }
    this.#size = end;
    return "taken";
  }

  /** The whole body. */
  bytes(): Uint8Array {
    if (this.#shared !== undefined) return this.#shared.subarray(0, this.#size);
    this.#closeBlock();
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
  }

  /** Keeps a chunk in order: as it came when it is large or the body's first (most bodies are one), else copied into a block. */
  #keep(chunk: Uint8Array): void {
    if (chunk.byteLength >= COPIED_CHUNK_BYTES || (this.#chunks.length === 0 && this.#block === undefined)) {
      this.#closeBlock();
      this.#chunks.push(chunk);
      return;
    }
    if (this.#block === undefined || this.#blockUsed + chunk.byteLength > this.#block.length) {
      this.#closeBlock();
      this.#block ??= Buffer.allocUnsafe(BLOCK_BYTES);
    }
    this.#block.set(chunk, this.#blockUsed);
    this.#blockUsed += chunk.byteLength;
  }

  /**
   * Ends the block being filled: its used part joins the chunks, as a view when it fills most of
   * it (the block is then theirs), else as a copy of its own, the block kept for the next small
   * chunks. A view of a block little used pinned all of it: a 4 KiB chunk and a 1-byte one in turn
   * held 64 KiB per 4 KiB sent (found by a review).
   */
  #closeBlock(): void {
    if (this.#block === undefined) return;
    if (this.#blockUsed * 2 >= this.#block.length) {
      this.#chunks.push(this.#block.subarray(0, this.#blockUsed));
      this.#block = undefined;
    } else if (this.#blockUsed > 0) {
      this.#chunks.push(Buffer.from(this.#block.subarray(0, this.#blockUsed)));
    }
    this.#blockUsed = 0;
  }

  /** Counts the bytes up to `total` not counted yet against the hold. */
  #count(total: number): Take {
    if (total <= this.#counted) return "taken";
    const taken = this.#hold === undefined ? "taken" : this.#hold.take(total - this.#counted);
    if (taken === "taken") this.#counted = total;
    return taken;
  }
}
