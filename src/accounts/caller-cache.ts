/**
 * Remembers which caller a key hash resolved to (or that it resolved to nobody) for as long as
 * the store's change token stays the same. Any committed change, here or from modctl in another
 * process, empties it, so a revoked key or a changed plan still takes effect on the next request;
 * between changes, authentication costs one token read instead of a query.
 */
export function createCallerCache<Caller>(changeToken: () => string, maxEntries = 10_000) {
  const entries = new Map<string, Caller | undefined>();
  let token = "";

  /** Drops everything when the store has changed since the entries were read. */
  const current = () => {
    const now = changeToken();
    if (now !== token) {
      entries.clear();
      token = now;
    }
    return entries;
  };

  return {
    /** `found: false` means "not cached", as opposed to a cached "no such key". */
    get(hash: string): { found: true; caller: Caller | undefined } | { found: false } {
      const map = current();
      return map.has(hash) ? { found: true, caller: map.get(hash) } : { found: false };
    },
    /** `tokenBefore` is the token read before the query, so a change made meanwhile is not masked. */
    set(hash: string, caller: Caller | undefined, tokenBefore: string): void {
      if (tokenBefore !== token) return;
      // Random unknown keys must not grow memory without bound.
      if (entries.size >= maxEntries) entries.clear();
      entries.set(hash, caller);
    },
    token: () => token,
  };
}
