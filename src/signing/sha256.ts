import { hash } from "node:crypto";

/** One-shot SHA-256 (crypto.hash skips the Hash object createHash builds; Node ≥ 20.12). */
export function sha256(data: Uint8Array | string): Uint8Array {
  return hash("sha256", data, "buffer");
}
