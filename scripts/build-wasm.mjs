// Assembles the project's WebAssembly text sources into the .wasm files committed beside them
// (`npm run build:wasm`). The binaries are committed so that nothing is assembled at start-up;
// test/classifiers/wasm-row-table.test.ts fails if a committed binary is not what its source builds.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

export const WASM_SOURCES = ["classifiers/model/row-sums.wat", "classifiers/model/dense-relu.wat", "training/embedding-bag.wat"].map((path) => fileURLToPath(new URL(`../src/${path}`, import.meta.url)));

/** The binary that `watPath` assembles to (SIMD on, no names or debug sections). */
export async function assemble(watPath) {
  const wabt = await wabtInit();
  const module = wabt.parseWat(watPath, await readFile(watPath, "utf8"), { simd: true });
  try {
    module.validate();
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const source of WASM_SOURCES) {
    const binary = await assemble(source);
    const target = source.replace(/\.wat$/, ".wasm");
    await writeFile(target, binary);
    console.log(`${target}: ${binary.length} bytes`);
  }
}
