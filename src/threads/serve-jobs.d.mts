/** What a worker's set-up gives serveJobs: how to run one job, and what to report once ready. */
export interface ServedWorker<Job, Result, Info> {
  run(job: Job): Result | Promise<Result>;
  info: Info;
}

export function serveJobs<Setup, Job, Result, Info>(setUp: (setup: Setup) => Promise<ServedWorker<Job, Result, Info>>): Promise<void>;

/** The workerData a pool gives each worker; serveJobs hands `setup` to the worker's set-up. */
export interface PoolWorkerData<Setup> {
  setup: Setup;
  /** [0]: the id of the job being run, read by the pool when the thread dies. */
  progress: Int32Array;
  replyEvery: number;
}

/** Pool → worker: jobs and their ids as parallel arrays (one object less per job to clone). */
export interface JobBatch<Job> {
  ids: number[];
  jobs: Job[];
}

/**
 * Answers to jobs of one batch; a batch may be answered in several parts, `last` marks its final
 * one. Parallel arrays: `ids[i]`'s answer is `values[i]`, unless the job threw: then
 * `messages[i]` is its error's message (`messages` is there only when a job of this part threw,
 * null for the others).
 */
export interface ResultsReply<Result> {
  type: "results";
  ids: number[];
  values: Array<Result | undefined>;
  messages?: Array<string | null>;
  last: boolean;
}

/** Worker → pool. */
export type WorkerReply<Result, Info> =
  | { type: "ready"; info: Info }
  | { type: "fatal"; message: string }
  | ResultsReply<Result>;
