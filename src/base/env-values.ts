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

/** The variables that take what a provider's base URL must not carry: its key, its API version. */
export interface BaseUrlSettings {
  /** The variable that holds the provider's key (sent as a header, never in the URL). */
  apiKey: string;
  /** The variable that holds an API version, where the provider has one. */
  apiVersion?: string;
}

/**
 * `name`'s value as an http(s) base URL, or a ConfigError that does not echo it: it may carry
 * credentials (`https://user:key@host`), and the message goes to stderr and to logs. A URL of
 * another scheme is named by its scheme only.
 */
export function readHttpUrl(name: string, raw: string, settings: BaseUrlSettings): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid http(s) URL (its value is not shown: it may hold credentials).`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${name} must be an http(s) URL; got "${url.protocol}//".`);
  refuseBaseUrlExtras(name, url, settings);
  return url;
}

/**
 * Such a URL was accepted and every call failed: fetch refuses credentials in a URL (its error
 * echoing the password), and request paths are appended to the string, so after a query or a
 * fragment they were no path at all. `href` keeps an empty "?" or "#", which `search` and `hash` drop.
 */
function refuseBaseUrlExtras(name: string, url: URL, settings: BaseUrlSettings): void {
  const notShown = "(the value is not shown)";
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(`${name} must not hold a user or password: put the key in ${settings.apiKey} ${notShown}.`);
  }
  if (url.href.includes("?")) {
    const version = settings.apiVersion === undefined ? "" : `; an api-version goes in ${settings.apiVersion}`;
    throw new ConfigError(`${name} must not hold a query (?…): request paths are added after it${version} ${notShown}.`);
  }
  if (url.href.includes("#")) throw new ConfigError(`${name} must not hold a fragment (#…): request paths are added after it ${notShown}.`);
}

/**
 * An API key, trimmed, or undefined when unset. Sent in a header: a line break or a character
 * past Latin-1 made the HTTP client refuse every call with an error echoing the header, and a
 * space ("Bearer sk-…") is never part of a key. Refused naming the variable, not the value.
 */
export function readApiKey(env: Env, name: string): string | undefined {
  const key = nonEmpty(env[name]);
  if (key !== undefined && !/^[\x21-\x7e]+$/.test(key)) {
    throw new ConfigError(`${name} must be the key alone: printable ASCII, no spaces or line breaks (the value is not shown).`);
  }
  return key;
}
