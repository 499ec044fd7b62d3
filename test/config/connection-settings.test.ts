import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/config.js";
import { isPostgresSettingRefused } from "../../src/storage/storage-errors.js";

/**
 * Settings that were accepted at start-up and failed later, or were refused with the secret they
 * hold in the message (found by an audit of configuration). Every refusal names its variable and
 * never shows SECRET.
 */

const SECRET = "SECRETPW4711";
const base = { DATA_DIR: "/tmp/moderation-config-test" };
const read = (env: Record<string, string>) => readConfig({ ...base, ...env });

/** The ConfigError's message for `env`; fails the test if it is accepted or fails otherwise. */
function refusal(env: Record<string, string>): string {
  try {
    read(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

const PG_NOT_SHOWN = "(its value is not shown: it may hold a password)";

describe("DATABASE_URL, parsed as pg will parse it", () => {
  it.each([
    ["?port=abc"], ["?port=0"], ["?port=65536"], ["?port=-5"], ["?port=1e3"],
  ])("refuses a port pg cannot connect to (%s; ?port=abc exited 0 in silence)", (query) => {
    expect(refusal({ DATABASE_URL: `postgres://admin:${SECRET}@127.0.0.1:5432/test${query}` }))
      .toBe(`DATABASE_URL's port must be a whole number from 1 to 65535 ${PG_NOT_SHOWN}.`);
  });

  it("refuses a port 0 in the authority too", () => {
    expect(refusal({ DATABASE_URL: `postgres://admin:${SECRET}@db:0/test` })).toMatch(/^DATABASE_URL's port must be/);
  });

  it.each([["sslrootcert"], ["sslcert"], ["sslkey"]])("names the %s file it cannot read (it was 1 and a bare ENOENT)", (param) => {
    expect(refusal({ DATABASE_URL: `postgres://admin:${SECRET}@db/test?${param}=/nonexistent/file.pem` }))
      .toBe(`DATABASE_URL: cannot read /nonexistent/file.pem, the file its ${param} names (ENOENT).`);
  });

  it.each([
    "postgresql://u@db:5432/mod",
    `postgres://admin:${SECRET}@db/test?port=6432`,
    "postgres://u@[::1]:5432/test",
    "postgres:///test?host=/var/run/postgresql",
    // No host: pg's default (PGHOST, else localhost), as before.
    "postgres:///test",
    "postgres://u@%2Fvar%2Frun%2Fpostgresql/test",
    `postgres://admin:${SECRET}%ZZ@db/test`,
  ])("accepts %s, as given", (value) => {
    expect(read({ DATABASE_URL: value }).databaseUrl).toBe(value);
  });

  it("takes PostgreSQL's 3F000 (a search_path naming no schema) as a refusal of DATABASE_URL", () => {
    const error = Object.assign(new Error("no schema has been selected to create in"), { code: "3F000" });
    expect(isPostgresSettingRefused(error)).toBe(true);
  });
});

const REDIS_NOT_SHOWN = PG_NOT_SHOWN;

describe("REDIS_URL, as the Redis client reads it", () => {
  it.each(["/abc", "/1/2", "/1.5", "/1e1", "/0x3", "/-1", "/ 1", "/%31"])("refuses the path %s (a crash, a limiter that never worked, or another database)", (pathname) => {
    expect(refusal({ REDIS_URL: `redis://:${SECRET}@cache:6379${pathname}` }))
      .toBe(`REDIS_URL's path must be empty or a database index such as /0 ${REDIS_NOT_SHOWN}.`);
  });

  it.each([`redis://:${SECRET}%ZZ@cache`, `redis://u%ZZ:${SECRET}@cache`, `redis://u:${SECRET}%E0%A4%A@cache`])("refuses a user or password that does not decode (%s: it was 1, 'URI malformed')", (value) => {
    expect(refusal({ REDIS_URL: value })).toBe(`REDIS_URL's user or password holds a % not followed by two hex digits (write % as %25) ${REDIS_NOT_SHOWN}.`);
  });

  it.each([`redis://:${SECRET}@cache:6379?db=3`, `redis://:${SECRET}@cache:6379/2?`, `redis://:${SECRET}@cache:6379/2#x`])("refuses %s: the client ignores a query and a fragment", (value) => {
    expect(refusal({ REDIS_URL: value }))
      .toBe(`REDIS_URL must have no query or fragment (the client ignores them; a database index goes in the path, e.g. redis://host:6379/3) ${REDIS_NOT_SHOWN}.`);
  });

  it.each(["redis://cache:6379", "redis://cache:6379/", "redis://cache/0", "rediss://:p%40ss@cache:6380/15", "redis://user:pw@[::1]:6379/11"])("accepts %s", (value) => {
    expect(read({ REDIS_URL: value }).redisUrl).toBe(value);
  });
});

describe("provider base URLs (fetch refuses credentials, and a query got the path appended after it)", () => {
  const vision = (url: string) => ({ VISION_BASE_URL: url, VISION_MODEL: "m" });
  const text = (url: string) => ({ TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_MODEL: "m", TEXT_PROVIDER_BASE_URL: url });

  it.each([`https://u:${SECRET}@h.example/v1`, `https://:${SECRET}@h.example/v1`, `https://${SECRET}@h.example/v1`])("refuses a user or password in VISION_BASE_URL and TEXT_PROVIDER_BASE_URL (%s)", (url) => {
    expect(refusal(vision(url))).toBe("VISION_BASE_URL must not hold a user or password: put the key in VISION_API_KEY (the value is not shown).");
    expect(refusal(text(url))).toBe("TEXT_PROVIDER_BASE_URL must not hold a user or password: put the key in TEXT_PROVIDER_API_KEY (the value is not shown).");
  });

  it.each([`http://h/v1?key=${SECRET}`, "http://h/v1?api-version=2024-06-01", "http://h/v1?"])("refuses a query (%s), pointing to VISION_API_VERSION where there is one", (url) => {
    expect(refusal(vision(url))).toBe("VISION_BASE_URL must not hold a query (?…): request paths are added after it; an api-version goes in VISION_API_VERSION (the value is not shown).");
    expect(refusal(text(url))).toBe("TEXT_PROVIDER_BASE_URL must not hold a query (?…): request paths are added after it (the value is not shown).");
  });

  it.each(["http://h/v1#x", "http://h/v1#"])("refuses a fragment (%s)", (url) => {
    expect(refusal(vision(url))).toBe("VISION_BASE_URL must not hold a fragment (#…): request paths are added after it (the value is not shown).");
    expect(refusal(text(url))).toBe("TEXT_PROVIDER_BASE_URL must not hold a fragment (#…): request paths are added after it (the value is not shown).");
  });

  it("accepts a plain base URL", () => {
    expect(read(vision("https://NAME.openai.azure.com/openai/deployments/D")).images.deepAnalysis?.baseUrl).toBe("https://NAME.openai.azure.com/openai/deployments/D");
    expect(read(text("http://localhost:11434/v1")).textProvider?.baseUrl).toBe("http://localhost:11434/v1");
  });
});

describe("provider API keys (a header the HTTP client refuses failed every call, echoing the key)", () => {
  const vision = (key: string) => ({ VISION_BASE_URL: "http://h/v1", VISION_MODEL: "m", VISION_API_KEY: key });
  const text = (key: string) => ({ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_API_KEY: key });

  it.each([`sk-${SECRET}\nmore`, `sk-${SECRET}\u043a\u043b\u044e\u0447`, `sk-${SECRET}\u00e9`, `Bearer sk-${SECRET}`, `sk-${SECRET}\t1`])("refuses a key that is not printable ASCII without spaces (%j)", (key) => {
    expect(refusal(vision(key))).toBe("VISION_API_KEY must be the key alone: printable ASCII, no spaces or line breaks (the value is not shown).");
    expect(refusal(text(key))).toBe("TEXT_PROVIDER_API_KEY must be the key alone: printable ASCII, no spaces or line breaks (the value is not shown).");
  });

  it("accepts a key, trimmed (a file's last newline is no part of it)", () => {
    expect(read(vision(`sk-${SECRET}\n`)).images.deepAnalysis?.apiKey).toBe(`sk-${SECRET}`);
    expect(read(text(` sk-${SECRET}~!`)).textProvider?.apiKey).toBe(`sk-${SECRET}~!`);
  });
});

describe("origins never echo a password", () => {
  it.each([`https://u:${SECRET}@a.com`, `https://${SECRET}@a.com`, `u:${SECRET}@a.com`])("refuses CORS_ORIGINS holding %s without showing it", (entry) => {
    expect(refusal({ CORS_ORIGINS: `https://ok.example.com, ${entry}` }))
      .toBe("CORS_ORIGINS holds origins such as https://app.example.com, with no user or password (the entry is not shown).");
  });

  it.each([`https://u:${SECRET}@a.com`, `https://${SECRET}@a.com/`])("refuses DASHBOARD_ORIGIN=%s without showing it", (value) => {
    expect(refusal({ DASHBOARD_ORIGIN: value }))
      .toBe("DASHBOARD_ORIGIN is an origin such as https://moderation.example.com, with no user or password (the value is not shown).");
  });
});

describe("TRUST_PROXY's hop count", () => {
  it.each(["33", "1000", "99999999999999999999"])("refuses %s hops (1e20 trusted every hop, so X-Forwarded-For could be forged)", (hops) => {
    expect(refusal({ TRUST_PROXY: hops })).toBe(`TRUST_PROXY's hop count must be from 0 to 32; got "${hops}".`);
  });

  it.each([["0", 0], ["1", 1], ["32", 32]])("accepts %s", (raw, hops) => {
    expect(read({ TRUST_PROXY: raw }).trustProxy).toBe(hops);
  });
});
