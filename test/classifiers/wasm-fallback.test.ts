import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";

const run = promisify(execFile);
const SENTENCES = ["you are a worthless idiot", "I want to end my life tonight", "Thanks, see you at the meeting tomorrow.", "I will find where you live and hurt you"];

// The child prints whether it could reserve WebAssembly memory, then its verdicts.
const CHILD = `
  const { reserveMemory } = await import(${JSON.stringify(new URL("../../src/classifiers/model/wasm-support.ts", import.meta.url).pathname)});
  const { loadTrainedClassifier } = await import(${JSON.stringify(new URL("../../src/classifiers/engine/index.ts", import.meta.url).pathname)});
  const classifier = loadTrainedClassifier();
  console.log(JSON.stringify({ reserved: reserveMemory(1) !== undefined, verdicts: ${JSON.stringify(SENTENCES)}.map((t) => classifier.classify(t)) }));
`;

describe("the text model where WebAssembly memory cannot be reserved", () => {
  it("loads and scores under a 4 GB virtual-memory limit, the same to the bit", async () => {
    // V8 reserves about 10 GB of address space per WebAssembly memory; ulimit -v 4 GB can refuse it.
    const { stdout } = await run("bash", ["-c", `ulimit -v 4000000 && exec "${process.execPath}" --import ./src/boot/ts-loader.mjs --input-type=module -e '${CHILD}'`], { timeout: 60_000 });
    const child = JSON.parse(stdout.trim().split("\n").at(-1)!) as { reserved: boolean; verdicts: unknown[] };
    // Node 20's V8 refuses the reservation there; Node 24's falls back to bounds checks and gets
    // the memory, so there the WebAssembly path runs under the limit.
    if (process.versions.node.startsWith("20.")) expect(child.reserved).toBe(false);
    const classifier = loadTrainedClassifier();
    expect(child.verdicts).toEqual(JSON.parse(JSON.stringify(SENTENCES.map((t) => classifier.classify(t)))));
  }, 90_000);
});
