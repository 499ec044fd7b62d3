import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { createImageDecoder } from "../../src/images/decode.js";
import {
  createNsfwClassifier,
  NSFW_MODEL_ID,
  sexualVerdict,
  toProbabilities,
  verdictFromFrames,
} from "../../src/images/nsfw-classifier.js";
import { createNsfwPool, type NsfwPool } from "../../src/images/worker-pool.js";
import { animated, dataUri, png } from "./fixtures.js";

describe("mapping nsfwjs classes onto categories", () => {
  const p = (porn: number, hentai: number, sexy: number, neutral = 1 - porn - hentai - sexy, drawing = 0) =>
    toProbabilities([drawing, hentai, neutral, porn, sexy]);

  it("scores explicit classes fully and suggestive ones in part", () => {
    expect(sexualVerdict(p(0.7, 0, 0))).toEqual({ score: 0.7, flagged: true });
    expect(sexualVerdict(p(0, 0.55, 0))).toEqual({ score: 0.55, flagged: true });
    expect(sexualVerdict(p(0.1, 0.1, 0.5)).score).toBeCloseTo(0.35);
    // Six decimals, as text scores are given.
    expect(sexualVerdict(p(0.032904548221, 0, 0)).score).toBe(0.032905);
  });

  it("does not flag suggestive images alone", () => {
    expect(sexualVerdict(p(0, 0, 1, 0)).flagged).toBe(false);
    expect(sexualVerdict(p(0, 0, 0, 0.2, 0.8))).toEqual({ score: 0, flagged: false });
  });

  it("reports only the sexual category, from the worst frame", () => {
    const verdict = verdictFromFrames([
      [0.1, 0, 0.9, 0, 0],
      [0, 0.05, 0.1, 0.8, 0.05],
      [0, 0, 1, 0, 0],
    ]);
    expect(Object.keys(verdict.categories)).toEqual(["sexual"]);
    expect(verdict.categories.sexual?.score).toBeCloseTo(0.865);
    expect(verdict.categories.sexual?.flagged).toBe(true);
    expect(verdict.explanations).toEqual({});
  });

  it("refuses output that is not five finite probabilities", () => {
    expect(() => toProbabilities([0.2, 0.8])).toThrow(/expected 5/);
    expect(() => toProbabilities([0, 0, Number.NaN, 0, 0])).toThrow(/finite/);
  });
});

describe("starting the embedded model", () => {
  it("refuses to start when tfjs cannot use the wasm backend, instead of falling back to cpu", async () => {
    const error = await createNsfwPool({ workers: 1, wasmDir: "/nonexistent/tfjs-wasm/" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^The embedded image model failed to start: .*not wasm/s);
  });
});

describe("the embedded model in a worker pool", () => {
  let pool: NsfwPool;
  const decode = createImageDecoder();

  beforeAll(async () => {
    pool = await createNsfwPool({ workers: 1, maxQueue: 2 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it("runs on the wasm backend with batch norm folded, checked against the original at start-up", () => {
    expect(pool.info.backend).toBe("wasm");
    expect(pool.info.foldedLayers).toBeGreaterThan(50);
    expect(pool.info.maxDeviation).toBeLessThan(1e-3);
  });

  it("gives the same probabilities as nsfwjs itself on a real image", async () => {
    const image = await decode(dataUri("image/png", await png(300, 200, "#d9a07a")));
    const [fromPool] = await pool.run(image.modelInput);

    const tf = await import("@tensorflow/tfjs");
    const wasm = await import("@tensorflow/tfjs-backend-wasm");
    wasm.setWasmPaths(`${path.dirname(createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm"))}/`);
    await tf.setBackend("wasm");
    const info = console.info;
    console.info = () => {};
    const nsfwjs = await import("nsfwjs");
    const reference = await nsfwjs.load("MobileNetV2").finally(() => (console.info = info));
    const input = tf.tensor4d(Float32Array.from(image.modelInput[0]!, (v) => v / 255), [1, 224, 224, 3]);
    const expected = Array.from(await (reference.model.predict(input) as import("@tensorflow/tfjs").Tensor).data());
    reference.dispose();

    expect(fromPool).toHaveLength(5);
    fromPool!.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 4));
  });

  it("returns a verdict with only the sexual category, deterministically", async () => {
    const classifier = createNsfwClassifier(pool);
    expect(classifier.id).toBe(NSFW_MODEL_ID);
    expect(NSFW_MODEL_ID).toMatch(/^nsfwjs-mobilenet_v2@\d+\.\d+\.\d+$/);
    const image = await decode(dataUri("image/png", await png(64, 64, "#2a6f3b")));
    const first = await classifier.classify(image);
    const second = await classifier.classify(image);
    expect(Object.keys(first.categories)).toEqual(["sexual"]);
    const score = first.categories.sexual!.score;
    expect(score).toBeGreaterThanOrEqual(0);
    expect(score).toBeLessThanOrEqual(1);
    expect(second).toEqual(first);
  });

  it("scores every sampled frame of an animation in one job", async () => {
    const image = await decode(dataUri("image/gif", await animated("gif", 8)));
    const rows = await pool.run(image.modelInput);
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
  });

  it("keeps the event loop free while it infers", async () => {
    const image = await decode(dataUri("image/gif", await animated("gif", 8)));
    const order: string[] = [];
    const job = pool.run(image.modelInput).then(() => order.push("inference"));
    await new Promise((resolve) => setImmediate(resolve)).then(() => order.push("event loop"));
    await job;
    expect(order).toEqual(["event loop", "inference"]);
  });

  it("turns jobs away with service_unavailable when the queue is full", async () => {
    const image = await decode(dataUri("image/png", await png()));
    const jobs = Array.from({ length: 3 }, () => pool.run(image.modelInput)); // 1 running + 2 queued
    const error = await pool.run(image.modelInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("service_unavailable");
    expect((error as ApiError).message).toBe("The image model is busy; retry shortly.");
    await Promise.all(jobs);
  });

  it("reports a bad job as an error and keeps serving", async () => {
    await expect(pool.run([new Uint8Array(10)])).rejects.toThrow(/Image inference failed: frame 0 has 10 bytes/);
    const image = await decode(dataUri("image/png", await png()));
    expect(await pool.run(image.modelInput)).toHaveLength(1);
  });
});
