import type { TextClassifier } from "../classifiers/classifier.js";

/**
 * Upper bounds (seconds) of the classifier-time histogram. The text model takes tens of
 * microseconds for a short text and a few milliseconds for a long or crafted one; images (the
 * same metric, kind="image") tens of milliseconds to seconds, a cold model's first several (the
 * bounds stopped at 0.1 s, so most image times fell in the top buckets or +Inf).
 */
export const CLASSIFIER_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

/**
 * A histogram in shared memory, so compute worker threads (which classify the texts) record
 * into it directly and the main thread reads it when /metrics is scraped: no message per
 * observation, nothing on the event loop per request. Cells: one count per bucket (not
 * cumulative; the last is +Inf), then the sum in nanoseconds. Atomics, because every worker
 * writes to the same cells.
 */
export type SharedTimings = BigInt64Array;

export function createSharedTimings(): SharedTimings {
  const cells = CLASSIFIER_BUCKETS.length + 2;
  return new BigInt64Array(new SharedArrayBuffer(cells * BigInt64Array.BYTES_PER_ELEMENT));
}

function recordTiming(timings: SharedTimings, seconds: number): void {
  let bucket = 0;
  while (bucket < CLASSIFIER_BUCKETS.length && seconds > CLASSIFIER_BUCKETS[bucket]!) bucket++;
  Atomics.add(timings, bucket, 1n);
  Atomics.add(timings, CLASSIFIER_BUCKETS.length + 1, BigInt(Math.round(seconds * 1e9)));
}

/** Cumulative bucket counts (last is +Inf, i.e. the total count) and the sum in seconds. */
export function readTimings(timings: SharedTimings): { cumulative: number[]; sum: number } {
  const cumulative: number[] = [];
  let running = 0;
  for (let i = 0; i <= CLASSIFIER_BUCKETS.length; i++) {
    running += Number(Atomics.load(timings, i));
    cumulative.push(running);
  }
  return { cumulative, sum: Number(Atomics.load(timings, CLASSIFIER_BUCKETS.length + 1)) / 1e9 };
}

/** The classifier, recording the time of each text it classifies (an item, or a call's combined text). */
export function timeTextClassifier(classifier: TextClassifier, timings: SharedTimings): TextClassifier {
  return {
    id: classifier.id,
    classify(text, _signal, options) {
      const started = performance.now();
      const verdict = classifier.classify(text, undefined, options);
      // A synchronous classifier stays synchronous: no promise turn added on its callers' path.
      if (verdict instanceof Promise) return verdict.finally(() => recordTiming(timings, (performance.now() - started) / 1000));
      recordTiming(timings, (performance.now() - started) / 1000);
      return verdict;
    },
  };
}
