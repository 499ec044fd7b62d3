/**
 * One piece of long synchronous work written once as a generator that yields at checkpoints, run
 * either straight through (runToEnd) or giving the event loop a turn whenever it has held it for
 * a slice (runCooperatively). A full-size policy takes 0.2-0.3 s of CPU to validate and compile;
 * run cooperatively, every other request on the process is answered in between instead of after.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end without giving the event loop a turn. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end, giving the event loop a turn after each slice of `sliceMs`. */
export async function runCooperatively<T>(steps: Steps<T>, sliceMs = 4): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** How many units of work (terms, trie nodes) go between two checkpoints: cheap to count, small enough to keep slices short. */
export const CHECKPOINT_EVERY = 512;

/**
 * How many list terms are normalised between two checkpoints. A term of 100 rare characters
 * takes up to about 0.1 ms to normalise: 512 of them between checkpoints held the event loop
 * 50-100 ms at a time while a full-size policy of them was validated.
 */
export const TERMS_PER_CHECKPOINT = 16;
