/**
 * Failed log-ins per (email, client IP): after `maxFailures` within `windowMs` the pair is
 * refused until the window ends. Kept in memory: per process, reset on restart, and with
 * several replicas an attacker gets `maxFailures` per replica. That is acceptable for the
 * embedded single-process default; the scrypt cost still caps guesses per second.
 */
export function createLoginLimiter(options: { clock: () => number; maxFailures?: number; windowMs?: number; maxEntries?: number }) {
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.windowMs ?? 15 * 60_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const failures = new Map<string, { count: number; since: number }>();
  const keyOf = (email: string, ip: string) => `${email.trim().toLowerCase()}\u0000${ip}`;

  const current = (key: string) => {
    const entry = failures.get(key);
    if (entry && options.clock() - entry.since >= windowMs) {
      failures.delete(key);
      return undefined;
    }
    return entry;
  };

  return {
    /** Milliseconds until another attempt is allowed, or 0 when it is allowed now. */
    retryAfterMs(email: string, ip: string): number {
      const entry = current(keyOf(email, ip));
      if (!entry || entry.count < maxFailures) return 0;
      return entry.since + windowMs - options.clock();
    },
    recordFailure(email: string, ip: string): void {
      const key = keyOf(email, ip);
      const entry = current(key);
      if (entry) entry.count++;
      else {
        // Bound memory under a flood of distinct pairs: drop the oldest entries first.
        if (failures.size >= maxEntries) failures.delete(failures.keys().next().value!);
        failures.set(key, { count: 1, since: options.clock() });
      }
    },
    recordSuccess(email: string, ip: string): void {
      failures.delete(keyOf(email, ip));
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
