/**
 * Picks up to `max` frames spread evenly over an animation, always including the first and the
 * last: content is often hidden in the closing frames of an otherwise harmless loop.
 */
export function sampleFrameIndices(frames: number, max: number): number[] {
  if (!Number.isInteger(frames) || frames < 1) throw new RangeError(`frames must be a positive integer; got ${frames}`);
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer; got ${max}`);
  const count = Math.min(frames, max);
  if (count === 1) return [0];
  const indices = new Set<number>();
  for (let i = 0; i < count; i++) indices.add(Math.round((i * (frames - 1)) / (count - 1)));
  return [...indices].sort((a, b) => a - b);
}
