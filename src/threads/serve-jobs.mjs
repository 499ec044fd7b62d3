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
    // Answers go as parallel arrays (see ResultsReply), not an object per answer: each object
    // costs the pool's thread a deserialisation of its own.
    let answered = [];
    let values = [];
    let messages;
    for (let i = 0; i < jobs.length; i++) {
      const id = ids[i];
      Atomics.store(progress, 0, id); // read by the pool if this thread dies
      let value;
      let message = null;
      try {
        value = await run(jobs[i]);
      } catch (error) {
        message = error instanceof Error ? error.message : String(error);
      }
      answered.push(id);
      values.push(value);
      // The first failure of this part: the jobs answered before it in the part get null.
      if (message !== null && messages === undefined) messages = new Array(answered.length - 1).fill(null);
      messages?.push(message);
      const last = i === jobs.length - 1;
      if (last || answered.length >= replyEvery) {
        port.postMessage(messages === undefined ? { type: "results", ids: answered, values, last } : { type: "results", ids: answered, values, messages, last });
        answered = [];
        values = [];
        messages = undefined;
      }
    }
  });
  port.postMessage({ type: "ready", info });
}
