/** A mistake in the command line itself: modctl prints the message and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * A flag's whole number from `min` to `max`, digits only: Number() took "1e2", "0x10" and " 5"
 * for --limit, --count and --days while --rpm refused them.
 */
export function parseWholeNumber(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}; got "${raw}"`);
  }
  return Number(raw);
}
