import { Worker } from "node:worker_threads";
import { LaneQueue } from "./lane-queue.js";
import type { JobBatch, PoolWorkerData, ResultsReply, WorkerReply } from "./serve-jobs.mjs";

/** The errors a pool raises, worded for its callers (a compute pool and the image model word them differently). */
export interface WorkerPoolErrors {
  closed(): Error;
  /** A job was running when its worker died, `maxCrashes` times. */
  crashed(exitCode: number): Error;
  failedToStart(message: string): Error;
  exitedBeforeReady(exitCode: number): Error;
  /** No worker is running and the last try to start one failed (`cause`): jobs are refused until one is up. */
  noWorker(cause: Error): Error;
}

/** A replacement that failed to start is tried again after this long, doubled each time up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 10_000;

export interface WorkerPoolOptions<Setup, Job = unknown> {
  /** The worker's entry module; it answers through serveJobs (serve-jobs.mjs). */
  url: URL;
  /** Worker threads, at least one. */
  size: number;
  /** Handed to each worker's set-up (structured-cloned). */
  setup: Setup;
  errors: WorkerPoolErrors;
  /**
   * true: jobs submitted during one event-loop turn go to a worker in one message, so a busy
   * pool pays one wake-up and one (de)serialisation per batch, not per job. false: one job per
   * message, sent at once (for long jobs, where a turn's wait would only add latency).
   */
  gatherPerTurn: boolean;
  /** Messages posted to one worker and not yet fully answered, at most; the rest wait in the pool. */
  maxBatchesInFlight: number;
  /**
   * A job running when its worker died is re-run on another worker until it has been running
   * at this many deaths; then it is refused (1: never re-run). The other jobs the dead worker
   * held are always re-run: only the job it was running can be to blame.
   */
  maxCrashes: number;
  /** Worker replies are sent in parts of this many answers (see serveJobs); default 4. */
  replyEvery?: number;
  /**
   * With `gatherPerTurn`: the most work one message to a worker may hold, in the units of
   * `costOf` (a message holds at least one job), and the work past which a worker is sent no
   * further message until some of it is answered. Jobs past it wait in the pool, where lanes
   * take turns, instead of in a worker's port, where nothing can pass them. Default: no bound.
   */
  maxBatchCost?: number;
  /** A job's expected work, for `maxBatchCost`; default 1 per job. */
  costOf?: (job: Job) => number;
  /**
   * Jobs that may wait at most, and the error a job refused for want of room gets: a job of a
   * lane holding fewer places takes the place of the newest job of the longest lane (lane-queue.ts
   * displaceFor), so one caller cannot fill the queue against the others. Default: no bound.
   */
  maxWaiting?: { jobs: number; refusal: () => Error };
}

export interface WorkerPool<Job, Result, Info> {
  /** What the first worker reported when it was ready. */
  readonly info: Info;
  /**
   * Runs `job` on a worker. Aborting `signal` drops the job while it still waits for a worker
   * (rejected with the signal's reason); a job already posted runs out, its answer unread.
   * Waiting jobs are taken lane by lane in turn (lane-queue.ts): `lane` names whose job it is
   * (a caller's account); jobs without one share a lane.
   */
  run(job: Job, signal?: AbortSignal, lane?: string): Promise<Result>;
  /** Jobs waiting for a worker (not yet posted). */
  waiting(): number;
  /** Jobs submitted and not yet answered: waiting, posted or running. */
  pending(): number;
  /** Workers running now (fewer than `size` while a dead one's replacement starts). */
  live(): number;
  close(): Promise<void>;
}

type Pending<Job, Result> = {
  id: number; job: Job; lane: string; cost: number; crashes: number;
  resolve: (result: Result) => void; reject: (error: Error) => void; signal?: AbortSignal;
};

interface Slot<Job, Result> {
  worker: Worker;
  /** [0]: id of the job the worker is running (serveJobs stores it before each job), to tell the culprit of a crash. */
  progress: Int32Array;
  /** Posted, not yet answered, by job id. */
  inFlight: Map<number, Pending<Job, Result>>;
  /** Batches posted whose last answers have not come back. */
  batchesInFlight: number;
  /** The cost (`costOf`) of the jobs in `inFlight`. */
  costInFlight: number;
}

/**
 * A fixed number of worker threads that run jobs posted to them and survive the death of any
 * one: a worker that exits is replaced, the jobs it held run again elsewhere (or on its
 * replacement), and only the job it was running is refused after `maxCrashes` deaths. Jobs
 * must therefore be pure functions of their input. Each job goes to the least-loaded worker
 * with room; the rest wait here, their lanes taking turns.
 */
export async function createWorkerPool<Job, Result, Info, Setup>(options: WorkerPoolOptions<Setup, Job>): Promise<WorkerPool<Job, Result, Info>> {
  if (!(Number.isInteger(options.size) && options.size >= 1)) throw new RangeError(`a worker pool needs a positive whole number of workers; got ${options.size}`);
  const { errors } = options;
  const slots: Slot<Job, Result>[] = [];
  /** Not yet posted. */
  const queue = new LaneQueue<Pending<Job, Result>>();
  const maxBatchCost = options.gatherPerTurn ? (options.maxBatchCost ?? Infinity) : Infinity;
  let nextId = 0;
  // Ids live in an Int32Array (progress), so they wrap before 2^31; 0 means "none yet".
  const takeId = () => (nextId = nextId >= 0x7fffffff ? 1 : nextId + 1);
  let flushScheduled = false;
  let closed = false;
  /** Set while no worker runs and the last try to start one failed: jobs fail at once until one is up. */
  let broken: Error | undefined;
  /** Tries at a replacement that failed to start, waiting. */
  const retries = new Set<NodeJS.Timeout>();

  const start = (): Promise<{ slot: Slot<Job, Result>; info: Info }> =>
    new Promise((resolve, reject) => {
      const progress = new Int32Array(new SharedArrayBuffer(4));
      const workerData: PoolWorkerData<Setup> = { setup: options.setup, progress, replyEvery: options.replyEvery ?? 4 };
      const worker = new Worker(options.url, { workerData });
      const slot: Slot<Job, Result> = { worker, progress, inFlight: new Map(), batchesInFlight: 0, costInFlight: 0 };
      let ready = false;
      worker.on("message", (message: WorkerReply<Result, Info>) => {
        if (message.type === "results") settle(slot, message);
        else if (message.type === "ready") {
          ready = true;
          resolve({ slot, info: message.info });
        } else {
          reject(errors.failedToStart(message.message));
          void worker.terminate();
        }
      });
      worker.on("error", (error) => {
        if (!ready) reject(error);
      });
      worker.on("exit", (code) => {
        if (ready) replace(slot, code);
        else reject(errors.exitedBeforeReady(code));
      });
    });

  const settle = (slot: Slot<Job, Result>, { ids, values, messages, last }: ResultsReply<Result>) => {
    if (last) {
      slot.batchesInFlight--;
      if (queue.length > 0) scheduleFlush();
    }
    for (let i = 0; i < ids.length; i++) {
      const pending = slot.inFlight.get(ids[i]!);
      if (!pending) continue;
      slot.inFlight.delete(ids[i]!);
      slot.costInFlight -= pending.cost;
      const message = messages?.[i];
      if (message === undefined || message === null) pending.resolve(values[i] as Result);
      else pending.reject(new Error(message));
    }
  };

  /** A worker died: its jobs go back to the front of the queue (the culprit maybe refused) and a replacement starts. */
  const replace = (dead: Slot<Job, Result>, exitCode: number) => {
    const index = slots.indexOf(dead);
    if (index < 0) return; // closed: close() already settled its jobs
    slots.splice(index, 1);
    const orphans = [...dead.inFlight.values()].sort((a, b) => a.id - b.id);
    dead.inFlight.clear();
    const culprit = orphans.find((p) => p.id === Atomics.load(dead.progress, 0));
    if (culprit && ++culprit.crashes >= options.maxCrashes) {
      orphans.splice(orphans.indexOf(culprit), 1);
      culprit.reject(errors.crashed(exitCode));
    }
    // A job whose caller left while it ran is not run again for nobody.
    const rerun = orphans.filter((p) => !p.signal?.aborted);
    for (const p of orphans) if (p.signal?.aborted) p.reject(p.signal.reason);
    queue.pushFront(rerun);
    if (queue.length > 0) scheduleFlush();
    startReplacement(RETRY_FIRST_MS);
  };

  /**
   * Starts a worker in place of a dead one, and tries again later when it fails to start: a
   * replacement killed while it loaded (or out of memory then) had left the pool a worker short
   * for good, and with none left every later job failed while readiness said ready (audit,
   * session 52). While no worker runs, jobs are refused at once rather than held.
   */
  const startReplacement = (retryMs: number) => {
    start().then(
      ({ slot }) => {
        if (closed) return void slot.worker.terminate();
        slots.push(slot);
        broken = undefined;
        scheduleFlush();
      },
      (error: Error) => {
        if (closed) return;
        // Each dead worker's replacement waits on its own, longer each time it fails.
        const retry = setTimeout(() => {
          retries.delete(retry);
          if (!closed) startReplacement(Math.min(retryMs * 2, RETRY_MAX_MS));
        }, retryMs);
        retries.add(retry);
        if (slots.length > 0) return; // the live workers drain the queue
        broken = errors.noWorker(error);
        for (const p of queue.drain()) p.reject(broken);
      },
    );
  };

  const scheduleFlush = () => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  /**
   * Hands waiting jobs to the least-loaded worker (by work, then jobs) that may take another message, until none
   * may or none wait. With `gatherPerTurn`, one message holds a share of the waiting jobs (so
   * every worker with room gets some) of at most `maxBatchCost`; otherwise one job.
   */
  const flush = () => {
    flushScheduled = false;
    if (closed) return;
    while (queue.length > 0) {
      let best: Slot<Job, Result> | undefined;
      let open = 0;
      for (const s of slots) {
        if (s.batchesInFlight >= options.maxBatchesInFlight || (s.batchesInFlight > 0 && s.costInFlight >= maxBatchCost)) continue;
        open++;
        // The least work first, then the fewest jobs: a small job sent to a worker that has fewer
        // but larger jobs waited behind them while another worker was nearly idle.
        if (!best || s.costInFlight < best.costInFlight || (s.costInFlight === best.costInFlight && s.inFlight.size < best.inFlight.size)) best = s;
      }
      if (!best) return;
      post(best, takeBatch(Math.ceil(queue.length / open)));
    }
  };

  /** The next message's jobs: at least one, at most `count`, and within `maxBatchCost` together. */
  const takeBatch = (count: number): Pending<Job, Result>[] => {
    const first = queue.shift()!;
    const batch = [first];
    if (!options.gatherPerTurn) return batch;
    let cost = first.cost;
    for (let next = queue.peek(); next && batch.length < count && cost + next.cost <= maxBatchCost; next = queue.peek()) {
      batch.push(queue.shift()!);
      cost += next.cost;
    }
    return batch;
  };

  /**
   * A caller gone (cancelled, past its deadline) takes its job out of the queue: jobs of callers
   * who left had run to the end, holding the image model for up to seconds while callers still
   * there were refused service_unavailable for a full queue.
   */
  const dropWhenAborted = (pending: Pending<Job, Result>, signal: AbortSignal) => {
    const drop = () => {
      if (queue.remove(pending)) pending.reject(signal.reason);
    };
    signal.addEventListener("abort", drop, { once: true });
    const { resolve, reject } = pending;
    pending.resolve = (result) => {
      signal.removeEventListener("abort", drop);
      resolve(result);
    };
    pending.reject = (error) => {
      signal.removeEventListener("abort", drop);
      reject(error);
    };
  };

  const post = (slot: Slot<Job, Result>, batch: Pending<Job, Result>[]) => {
    for (const pending of batch) {
      slot.inFlight.set(pending.id, pending);
      slot.costInFlight += pending.cost;
    }
    slot.batchesInFlight++;
    slot.worker.postMessage({ ids: batch.map((p) => p.id), jobs: batch.map((p) => p.job) } satisfies JobBatch<Job>);
  };

  const started = await Promise.allSettled(Array.from({ length: options.size }, start));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  const ok = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (failure) {
    closed = true;
    await Promise.all(ok.map(({ slot }) => slot.worker.terminate()));
    throw failure.reason;
  }
  for (const { slot } of ok) slots.push(slot);

  return {
    info: ok[0]!.info,
    run: (job, signal, lane = "") =>
      new Promise((resolve, reject) => {
        if (closed) return reject(errors.closed());
        if (broken) return reject(broken);
        if (signal?.aborted) return reject(signal.reason);
        if (options.maxWaiting && queue.length >= options.maxWaiting.jobs) {
          const displaced = queue.displaceFor(lane);
          if (!displaced) return reject(options.maxWaiting.refusal());
          displaced.reject(options.maxWaiting.refusal());
        }
        const cost = options.costOf?.(job) ?? 1;
        const pending: Pending<Job, Result> = { id: takeId(), job, lane, cost, crashes: 0, resolve, reject, ...(signal ? { signal } : {}) };
        if (signal) dropWhenAborted(pending, signal);
        queue.push(pending);
        if (options.gatherPerTurn) scheduleFlush();
        else flush();
      }),
    waiting: () => queue.length,
    pending: () => queue.length + slots.reduce((sum, slot) => sum + slot.inFlight.size, 0),
    live: () => slots.length,
    async close() {
      if (closed) return;
      closed = true;
      for (const retry of retries) clearTimeout(retry);
      retries.clear();
      const unanswered = [...queue.drain(), ...slots.flatMap((s) => [...s.inFlight.values()])];
      const stopping = slots.splice(0);
      await Promise.all(stopping.map((s) => s.worker.terminate()));
      for (const p of unanswered) p.reject(errors.closed());
    },
  };
}
