import { parse as parsePgConnectionString, type ConnectionOptions } from "pg-connection-string";
import { ConfigError, nonEmpty, type Env } from "../base/env-values.js";

/**
 * DATABASE_URL and REDIS_URL, checked as their drivers will read them. A URL the WHATWG parser
 * accepts can still be one the driver cannot use, and the driver found out only while the service
 * started: exit 0 in silence (pg, a port that is no number), exit 1 naming no variable, or a rate
 * limiter that never worked. Messages never show the value: it may hold a password.
 */

const NOT_SHOWN = "(its value is not shown: it may hold a password)";

/** `name`'s value when it is a URL of one of `protocols` ("postgres:"), else a ConfigError. */
export function readUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL.`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")}; got "${url.protocol}//".`);
  }
  return raw;
}

/**
 * DATABASE_URL, as given, once pg's own parser reads from it a port it can connect to. A URL with
 * no host ("postgres:///mod") is pg's to complete (PGHOST, else localhost), as it always was.
 */
export function readDatabaseUrl(env: Env): string | undefined {
  const raw = readUrl(env, "DATABASE_URL", ["postgres:", "postgresql:"]);
  if (raw === undefined) return undefined;
  const options = parseAsPg(raw);
  // pg hands the port to net.connect, whose throw for a bad one was lost inside pg's connect.
  if (options.port && !isTcpPort(options.port)) {
    throw new ConfigError(`DATABASE_URL's port must be a whole number from 1 to 65535 ${NOT_SHOWN}.`);
  }
  return raw;
}

const isTcpPort = (text: string): boolean => /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535;

const SSL_FILE_PARAMS = ["sslrootcert", "sslcert", "sslkey"] as const;

/** pg's parse, which also reads the files the ssl parameters name (pg reads them again to connect). */
function parseAsPg(raw: string): ConnectionOptions {
  try {
    return parsePgConnectionString(raw);
  } catch (error) {
    const { code, path } = error as NodeJS.ErrnoException;
    if (typeof code === "string" && typeof path === "string") {
      const param = SSL_FILE_PARAMS.find((name) => new URL(raw).searchParams.get(name) === path) ?? "sslrootcert, sslcert or sslkey";
      throw new ConfigError(`DATABASE_URL: cannot read ${path}, the file its ${param} names (${code}).`);
    }
    // pg's other refusals (sslmode=verify-ca without a root certificate) are fixed texts, never the URL.
    throw new ConfigError(`DATABASE_URL: ${error instanceof Error ? error.message : String(error)} ${NOT_SHOWN}.`);
  }
}

/** REDIS_URL, as given, once the Redis client can read every part of it as meant. */
export function readRedisUrl(env: Env): string | undefined {
  const raw = readUrl(env, "REDIS_URL", ["redis:", "rediss:"]);
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  // The client reads the index with Number(): "/abc" threw "Invalid pathname" (exit 1), "/1.5" was
  // sent to SELECT and refused on every connect, "/1e1" and "/0x3" chose databases 10 and 3.
  if (!/^(?:\/\d*)?$/.test(url.pathname)) {
    throw new ConfigError(`REDIS_URL's path must be empty or a database index such as /0 ${NOT_SHOWN}.`);
  }
  if (!decodes(url.username) || !decodes(url.password)) {
    throw new ConfigError(`REDIS_URL's user or password holds a % not followed by two hex digits (write % as %25) ${NOT_SHOWN}.`);
  }
  // Ignored by the client: "?db=3" used database 0. `href` keeps an empty "?" or "#".
  if (url.href.includes("?") || url.href.includes("#")) {
    throw new ConfigError(`REDIS_URL must have no query or fragment (the client ignores them; a database index goes in the path, e.g. redis://host:6379/3) ${NOT_SHOWN}.`);
  }
  return raw;
}

/** Whether the client's decodeURIComponent of a user or password succeeds (else "URI malformed", exit 1). */
function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}
