import type { TextClassifier } from "../classifiers/classifier.js";
import type { Config } from "../config/config.js";
import type { SigningKeyRing } from "../signing/key-ring.js";
import { createDelegatingSigner, privateKeyForWorkers } from "../signing/signer.js";
import { laneOf } from "../threads/caller-lane.js";
import { createComputePool, type ComputePool } from "./compute-pool.js";
import { createWorkerAnswerer, type WorkerAnswerer } from "./worker-answers.js";

interface ComputeWorkers {
  pool: ComputePool;
  /** Classifies in the workers; undefined when a test supplied its own classifier. */
  textClassifier: TextClassifier | undefined;
  /** The same ring whose signer signs in the workers; undefined when its key is not ours to hand over. */
  signingKeys: SigningKeyRing | undefined;
  /** Whole signed answers to text-only calls, when the workers both classify and sign. */
  answerer: WorkerAnswerer | undefined;
}

/**
 * Starts WORKER_THREADS compute workers (none when it is 0) and hands them what they can take
 * over: the configured text classifier (unless a test injected its own) and the active signing
 * key (unless the ring came from a test without a key we created).
 */
export async function startComputeWorkers(
  config: Pick<Config, "computeWorkers" | "textClassifier">,
  overrides: { textClassifier?: TextClassifier },
  ring: SigningKeyRing,
  observe: { classifierTimings?: BigInt64Array } = {},
): Promise<ComputeWorkers | undefined> {
  if (config.computeWorkers === 0) return undefined;
  const signingKey = privateKeyForWorkers(ring.signer);
  const classify = overrides.textClassifier === undefined;
  if (!classify && !signingKey) return undefined;

  const pool = await createComputePool({
    size: config.computeWorkers,
    setup: {
      ...(classify ? { textClassifier: config.textClassifier } : {}),
      ...(classify && observe.classifierTimings ? { classifierTimings: observe.classifierTimings } : {}),
      ...(signingKey ? { signingKey, signingKeyId: ring.signer.keyId } : {}),
    },
  });
  const classifierId = pool.classifierId;
  // The same key the workers sign with, on this thread: a signature (tens of microseconds) is
  // made here while every worker is busy, so that an answer made on the event loop (under a
  // policy, with images) does not wait for another caller's long job to end before it is signed.
  const signHere = ring.signer;
  const busy = () => pool.queueDepth() >= config.computeWorkers;
  return {
    pool,
    textClassifier: classify && classifierId !== undefined ? { id: classifierId, classify: (text, signal, options) => pool.classify(text, laneOf(signal), options) } : undefined,
    signingKeys: signingKey
      ? {
        // A getter, not a copy: the data-dir store's list changes when another process rotates
        // (data-dir-key-store.ts), and the JWKS must publish a new key before anyone signs with it.
        get publishedKeys() {
          return ring.publishedKeys;
        },
        // Here too when the pool cannot sign (no worker running): every error answer is signed, and
        // those had become fastify's bare 500, unsigned and naming the worker (audit, session 52).
        // And while no worker runs: a signature queued behind a replacement still loading waited 1-2 s.
        signer: createDelegatingSigner(signHere.keyId, (data) => (busy() || pool.live() === 0 ? signHere.sign(data) : pool.sign(data).catch(() => signHere.sign(data)))),
      }
      : undefined,
    answerer: classify && classifierId !== undefined && signingKey ? createWorkerAnswerer(pool, classifierId) : undefined,
  };
}
