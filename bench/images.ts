// Image pipeline figures: decode cost, single-image latency and throughput of the embedded model.
// Usage: npm run bench:images [-- --workers 1,2 --images 60]
import os from "node:os";
import { parseArgs } from "node:util";
import sharp from "sharp";
import { crc32 } from "../src/images/crc32.js";
import { createImageDecoder } from "../src/images/decode.js";
import { createNsfwClassifier } from "../src/images/nsfw-classifier.js";
import { createNsfwPool } from "../src/images/worker-pool.js";

const { values } = parseArgs({
  options: { workers: { type: "string", default: "1,2" }, images: { type: "string", default: "60" } },
});
const workerCounts = values.workers.split(",").map(Number);
const count = Number(values.images);

/** A noisy photo-like 1024×768 JPEG, so decoding and resizing do realistic work. */
async function sampleJpeg(seed: number): Promise<string> {
  const width = 1024;
  const height = 768;
  const raw = Buffer.alloc(width * height * 3);
  let s = seed;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    raw[i] = ((i % (width * 3)) / 12 + (s >>> 26)) & 0xff;
  }
  const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString("base64")}`;
}

const uris = await Promise.all(Array.from({ length: 8 }, (_, i) => sampleJpeg(i + 1)));
const decode = createImageDecoder();
const decoded = await Promise.all(uris.map((u) => decode(u)));

const load = (): string => os.loadavg().map((v) => v.toFixed(2)).join(" ");
// Other work on the machine skews every figure; the load average says how much.
console.log(`node ${process.version}, ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? "?"}, load average ${load()}`);
{
  const start = performance.now();
  for (let i = 0; i < 40; i++) await decode(uris[i % uris.length]!);
  const ms = (performance.now() - start) / 40;
  console.log(`decode 1024×768 JPEG → 224² RGB: ${ms.toFixed(1)} ms per image (sequential)`);
}

{
  // Rejections must cost milliseconds: each bad input is refused before any real decoding.
  const bomb = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#000" } }).png().toBuffer();
  bomb.writeUInt32BE(100_000, 16); // IHDR width
  bomb.writeUInt32BE(100_000, 20); // IHDR height
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29); // IHDR's CRC (type and data), or the chunk check refuses it first
  const jpeg = Buffer.from(uris[0]!.slice(uris[0]!.indexOf(",") + 1), "base64");
  const cases: Array<[string, string]> = [
    ["over 5 MiB (7 MB of base64)", `data:image/png;base64,${"A".repeat(7_000_000)}`],
    ["bad base64 (4 MB)", `data:image/png;base64,${"A".repeat(4_000_000)}!!!!`],
    ["PNG claiming 100000×100000", `data:image/png;base64,${bomb.toString("base64")}`],
    ["truncated 1024×768 JPEG", `data:image/jpeg;base64,${jpeg.subarray(0, jpeg.length >> 1).toString("base64")}`],
  ];
  for (const [name, uri] of cases) {
    const runs = 20;
    const start = performance.now();
    let code = "";
    for (let i = 0; i < runs; i++) code = await decode(uri).then(() => "accepted", (e: { code?: string }) => e.code ?? "error");
    console.log(`reject ${name}: ${code} in ${((performance.now() - start) / runs).toFixed(2)} ms`);
  }
}

for (const workers of workerCounts) {
  const started = performance.now();
  const pool = await createNsfwPool({ workers, maxQueue: count + 1 });
  const startupMs = performance.now() - started;
  const classifier = createNsfwClassifier(pool);
  try {
    for (let i = 0; i < workers * 3; i++) await classifier.classify(decoded[i % decoded.length]!); // warm-up

    let start = performance.now();
    const sequential = 20;
    for (let i = 0; i < sequential; i++) await classifier.classify(decoded[i % decoded.length]!);
    const latency = (performance.now() - start) / sequential;

    start = performance.now();
    // CPU time (all threads of the process) is the cost of an image even when other work shares the cores.
    const cpuStart = process.cpuUsage();
    await Promise.all(Array.from({ length: count }, (_, i) => classifier.classify(decoded[i % decoded.length]!)));
    const elapsed = performance.now() - start;
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000 / count;
    console.log(
      `workers=${workers} (backend ${pool.info.backend}, simd ${pool.info.simd}, ${pool.info.foldedLayers} layers folded; start-up ${startupMs.toFixed(0)} ms): ` +
        `latency ${latency.toFixed(1)} ms per image one at a time; ` +
        `throughput ${(count / (elapsed / 1000)).toFixed(1)} images/s = ${(elapsed / count).toFixed(1)} ms per image over ${count} concurrent; ` +
        `${cpuMs.toFixed(1)} ms of CPU per image`,
    );
  } finally {
    await pool.close();
  }
}
console.log(`load average at the end: ${load()}`);
