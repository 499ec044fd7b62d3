/**
 * Small readers for environment values, shared by the central config and the subsystems'
 * own config readers (images, rate limits), so every variable fails the same way.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** The trimmed value, or undefined when unset or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** One of a fixed set of words (case-insensitive), or the fallback when unset. */
export function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = nonEmpty(env[name])?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(", ")}; got "${raw}".`);
  return raw as T;
}

/**
 * A setting of a provider that is not configured would be ignored in silence: TEXT_PROVIDER_MODEL
 * without TEXT_PROVIDER read as "the guard model is on" to whoever set it. Refused, naming every
 * variable under `prefix` that is set (but those in `allowed`).
 */
export function refuseOrphans(env: Env, prefix: string, why: string, allowed: readonly string[] = []): void {
  const set = Object.keys(env).filter((name) => name.startsWith(prefix) && !allowed.includes(name) && nonEmpty(env[name]) !== undefined).sort();
  if (set.length > 0) throw new ConfigError(`${set.join(", ")} ${set.length === 1 ? "is" : "are"} set, but ${why}: unset ${set.length === 1 ? "it" : "them"}, or configure the provider (docs/providers.md).`);
}

/**
 * `name`'s value as an http(s) URL, or a ConfigError that does not echo it: a base URL may carry
 * credentials (`https://user:key@host`), and the message goes to stderr and to logs. A URL of
 * another scheme is named by its scheme only.
 */
export function readHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid http(s) URL (its value is not shown: it may hold credentials).`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${name} must be an http(s) URL; got "${url.protocol}//".`);
  return url;
}
