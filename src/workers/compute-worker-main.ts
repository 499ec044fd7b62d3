import { parentPort, workerData } from "node:worker_threads";
import { createConfiguredTextClassifier } from "../classifiers/configured-text-classifier.js";
import { createEd25519SignFunction } from "../signing/ed25519-sign.js";
import { encodeVerdict } from "./verdict-codec.js";
import type { ComputeJob, ComputeResult, ComputeWorkerSetup, JobBatch, WorkerReply } from "./messages.js";

/**
 * The body of a compute worker: CPU-bound, side-effect-free steps of a request (text
 * classification, Ed25519 signing) moved off the event loop that serves HTTP. Each batch is
 * answered in one message.
 */
if (!parentPort) throw new Error("compute-worker-main must run in a worker thread");
const port = parentPort;
const reply = (message: WorkerReply) => port.postMessage(message);

try {
  const setup = workerData as ComputeWorkerSetup & { progress: Int32Array };
  const classifier = setup.textClassifier === undefined ? undefined : createConfiguredTextClassifier(setup.textClassifier);
  const signWithKey = setup.signingKey === undefined ? undefined : createEd25519SignFunction(setup.signingKey);

  const run = async (job: ComputeJob): Promise<ComputeResult> => {
    try {
      if (job.kind === "classify") {
        if (setup.exitOnText !== undefined && job.text === setup.exitOnText) process.exit(1);
        if (!classifier) throw new Error("this worker has no text classifier");
        return { id: job.id, ok: true, verdict: encodeVerdict(await classifier.classify(job.text)) };
      }
      if (!signWithKey) throw new Error("this worker has no signing key");
      return { id: job.id, ok: true, signature: signWithKey(job.data) };
    } catch (error) {
      return { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  };

  port.on("message", async ({ batch, jobs }: JobBatch) => {
    const results: ComputeResult[] = [];
    for (const job of jobs) {
      Atomics.store(setup.progress, 0, job.id); // read by the parent if this thread dies
      results.push(await run(job));
    }
    reply({ type: "results", batch, results });
  });
  reply({ type: "ready", classifierId: classifier?.id });
} catch (error) {
  reply({ type: "fatal", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
