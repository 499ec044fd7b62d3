import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPatternClassifier } from "../../src/classifiers/rules/pattern/pattern-classifier.js";
import { createKeyRing } from "../../src/signing/key-ring.js";
import { startComputeWorkers } from "../../src/workers/start-compute-workers.js";

describe("the compute workers' signer", () => {
  // Found by an audit (session 52): with no compute worker running, signing failed, and so every
  // error answer (a 401 too) became fastify's bare 500, unsigned and naming the worker.
  it("signs on the event loop when the pool cannot (no worker running), with the same key", async () => {
    const keys = generateKeyPairSync("ed25519");
    const ring = createKeyRing({ active: { privateKey: keys.privateKey, createdAt: 0 }, retiring: [] });
    // A classifier of the test's own: the workers only sign.
    const compute = await startComputeWorkers({ computeWorkers: 1, textClassifier: "pattern" }, { textClassifier: createPatternClassifier() }, ring);
    if (!compute?.signingKeys) throw new Error("expected workers that sign");
    const data = new TextEncoder().encode("signature base");
    expect(compute.pool.live()).toBe(1);
    expect(verify(null, data, keys.publicKey, await compute.signingKeys.signer.sign(data))).toBe(true);
    await compute.pool.close();
    expect(compute.pool.live()).toBe(0);
    await expect(compute.pool.sign(data)).rejects.toThrow(/shutting down/);
    expect(verify(null, data, keys.publicKey, await compute.signingKeys.signer.sign(data))).toBe(true);
  });
});
