import zlib from "node:zlib";

/**
 * CRC-32 as PNG (and zlib) computes it. Node's own, native, where it has one (20.15 and 22.2 on);
 * on the older Node 20 releases package.json still allows, a table-driven one (about 3 ms per MB
 * against well under 1 ms; checking a PNG's chunks is the only use).
 */
export const crc32: (bytes: Uint8Array) => number = typeof zlib.crc32 === "function" ? (bytes) => zlib.crc32(bytes) : tableCrc32;

let table: Uint32Array | undefined;

/** The portable CRC-32 (reflected polynomial 0xEDB88320), exported so tests hold it equal to zlib's. */
export function tableCrc32(bytes: Uint8Array): number {
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
