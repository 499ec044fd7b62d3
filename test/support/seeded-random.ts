/**
 * A small deterministic generator (an LCG) for tests that draw many cases: the same cases on every
 * run, so a failing one can be replayed from its seed. Returns numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
