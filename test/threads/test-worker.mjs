// A worker for the pool's own tests: each job says what to do, so a test can make a worker
// answer, fail a job, die mid-job or take its time. Plain JavaScript: runs without a loader.
import { threadId } from "node:worker_threads";
import { serveJobs } from "../../src/threads/serve-jobs.mjs";

await serveJobs(async (setup) => {
  if (setup.failToStart) throw new Error("set-up refused");
  // Shared with the test: while above 0, each start fails and counts it down.
  if (setup.failStarts && Atomics.sub(setup.failStarts, 0, 1) > 0) throw new Error("set-up refused for now");
  if (setup.exitBeforeReady) process.exit(3);
  const run = async (job) => {
    if (job.do === "exit") process.exit(7);
    if (job.do === "throw") throw new Error(`job ${job.value} failed`);
    if (job.do === "sleep") {
      // Blocks the thread, as a CPU-bound job does, so the pool must queue the others.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, job.ms);
    }
    return { value: job.value, thread: threadId };
  };
  return { run, info: { greeting: setup.greeting, thread: threadId } };
});
