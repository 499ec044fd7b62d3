/**
 * The first index in [0, length) at which `before(index)` is false, by binary search; `before` must
 * be true for a prefix of the range and false after it (e.g. "starts before offset X" on hits in
 * start order). Returns `length` when it is true everywhere.
 */
export function lowerBound(length: number, before: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
