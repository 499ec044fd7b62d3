import { readFileSync } from "node:fs";

/**
 * What the project's WebAssembly kernels share (row sums and hidden layers here, the embedding
 * bag's training loops in src/training): loading a committed .wasm file, and an instance with a
 * fixed-size memory of its own. Each kernel keeps a JavaScript loop beside it, used where these
 * give undefined.
 */

/** WebAssembly memory is little-endian; typed arrays over it use the machine's order. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The compiled module at `url`, or undefined where WebAssembly SIMD is missing or the machine is big-endian. */
export function loadSimdModule(url: URL): WebAssembly.Module | undefined {
  const bytes = readFileSync(url);
  return LITTLE_ENDIAN && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : undefined;
}

/** An instance of `module` over a memory of at least `bytes`, never grown (views of it stay valid); undefined where that memory cannot be had (reserveMemory). */
export function instantiateWithMemory(module: WebAssembly.Module, bytes: number): { exports: WebAssembly.Exports; buffer: ArrayBuffer } | undefined {
  const memory = reserveMemory(Math.ceil(bytes / 65_536));
  if (!memory) return undefined;
  return { exports: new WebAssembly.Instance(module, { env: { memory } }).exports, buffer: memory.buffer };
}

/**
 * A fixed-size WebAssembly memory, or undefined where it cannot be had: Node 20's V8 reserves about
 * 10 GB of address space for each (guard regions), which a virtual-memory limit (`ulimit -v` under
 * about 16 GB) refuses (Node 24's falls back to bounds checks). The caller then keeps its
 * JavaScript path: slower, the same results (test/classifiers/wasm-fallback.test.ts).
 */
export function reserveMemory(pages: number): WebAssembly.Memory | undefined {
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

export const align16 = (n: number) => (n + 15) & ~15;
