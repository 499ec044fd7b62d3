/**
 * Small typed arrays for the per-request path, cut from shared slabs. A typed array over 64 bytes
 * gets its own off-heap buffer: about half a microsecond to allocate and later free, more than
 * filling it, and a short text needs several. A view into a slab costs a tenth of that.
 *
 * Like new Int32Array(n) etc., every array starts zeroed (slabs are fresh and never reused; a spent
 * slab is freed once no view of it is left). Views share their slab's ArrayBuffer, so never transfer
 * or detach `.buffer` of one.
 */
const SLAB_BYTES = 1 << 16;
/** Larger requests get their own buffer: they would waste most of a slab, and cost little extra per byte. */
const MAX_SLAB_REQUEST = SLAB_BYTES >> 3;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/**
 * Byte offset of a new zeroed region of `bytes` bytes, 8-byte aligned for any element type. It may
 * start a new slab: read `slab` after calling this.
 */
function take(bytes: number): number {
  const size = (bytes + 7) & ~7;
  if (used + size > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const at = used;
  used += size;
  return at;
}

export function newInt32Array(length: number): Int32Array {
  if (length * 4 > MAX_SLAB_REQUEST) return new Int32Array(length);
  const at = take(length * 4);
  return new Int32Array(slab, at, length);
}

export function newUint32Array(length: number): Uint32Array {
  if (length * 4 > MAX_SLAB_REQUEST) return new Uint32Array(length);
  const at = take(length * 4);
  return new Uint32Array(slab, at, length);
}

export function newFloat64Array(length: number): Float64Array {
  if (length * 8 > MAX_SLAB_REQUEST) return new Float64Array(length);
  const at = take(length * 8);
  return new Float64Array(slab, at, length);
}

export function newUint8Array(length: number): Uint8Array {
  if (length > MAX_SLAB_REQUEST) return new Uint8Array(length);
  const at = take(length);
  return new Uint8Array(slab, at, length);
}
