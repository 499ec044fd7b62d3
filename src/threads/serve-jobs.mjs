// The worker side of a worker pool (worker-pool.ts). Plain JavaScript, so that a worker that
// runs without a TypeScript loader (the image model's) can use it as well as one that has one.
import { parentPort, workerData } from "node:worker_threads";

/**
 * Sets the worker up, tells the pool it is ready (or why it cannot start), then runs each batch
 * of jobs in order and answers in parts of `replyEvery`, so the pool can hand the first answers
 * on while this thread works on the rest. A job that throws is answered with its message; the
 * thread goes on.
 */
export async function serveJobs(setUp) {
  if (!parentPort) throw new Error("serveJobs must run in a worker thread");
  const port = parentPort;
  const { setup, progress, replyEvery } = workerData;
  let started;
  try {
    started = await setUp(setup);
  } catch (error) {
    port.postMessage({ type: "fatal", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return;
  }
  const { run, info } = started;
  port.on("message", async ({ ids, jobs }) => {
    let results = [];
    for (let i = 0; i < jobs.length; i++) {
      const id = ids[i];
      Atomics.store(progress, 0, id); // read by the pool if this thread dies
      try {
        results.push({ id, ok: true, value: await run(jobs[i]) });
      } catch (error) {
        results.push({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
      }
      const last = i === jobs.length - 1;
      if (last || results.length >= replyEvery) {
        port.postMessage({ type: "results", results, last });
        results = [];
      }
    }
  });
  port.postMessage({ type: "ready", info });
}
