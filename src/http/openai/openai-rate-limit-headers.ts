/**
 * OpenAI names a request budget `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests` and
 * `x-ratelimit-reset-requests` (the reset as a Go-style duration: "1s", "6m0s"). Clients written
 * against OpenAI read those names, so /v1/moderations also answers the figures of our own
 * X-RateLimit-* trio under them. Answers that carry no decision (a refusal before the key was
 * known, a rate limiter that could not be asked) get none of the three that are missing.
 */
export function withOpenAiRateLimitNames(headerSets: readonly Headers[]): Headers[] {
  const find = (name: string): string | null => {
    for (const set of headerSets) {
      const value = set.get(name);
      if (value !== null) return value;
    }
    return null;
  };
  const limit = find("x-ratelimit-limit");
  const remaining = find("x-ratelimit-remaining");
  const reset = find("x-ratelimit-reset");
  const named = new Headers();
  if (limit !== null) named.set("x-ratelimit-limit-requests", limit);
  if (remaining !== null) named.set("x-ratelimit-remaining-requests", remaining);
  if (reset !== null && /^\d+$/.test(reset)) named.set("x-ratelimit-reset-requests", goDuration(Number(reset)));
  return [...headerSets, named];
}

/** Whole seconds as OpenAI writes a reset: "0s", "45s", "1m0s", "1h0m5s". */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
