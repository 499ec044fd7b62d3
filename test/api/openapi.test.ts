import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TextClassifier } from "../../src/classifiers/classifier.js";
import { ERROR_CODES, type ErrorCode } from "../../src/errors/api-error.js";
import { API_ROUTES } from "../../src/http/openapi/api-routes.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { createMemoryRateLimiter } from "../../src/rate-limit/memory-rate-limiter.js";
import { RateLimiterUnavailableError, type RateLimiter } from "../../src/rate-limit/rate-limiter.js";
import type { Database } from "../../src/storage/database.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { StorageUnavailableError } from "../../src/storage/storage-errors.js";
import { dataUri, gif, png } from "../images/fixtures.js";
import { startFakeOpenAiServer, status, type FakeOpenAiServer } from "../providers/fake-openai-server.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * GET /openapi.json against the server's real answers: successes and every error code of the
 * error table, each produced by a real request, validated with ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) against the schema the document gives that route and status.
 */
type Answer = { method: string; path: string; status: number; body: unknown; headers: Headers };

const servers: TestServer[] = [];
let vision: FakeOpenAiServer;
let doc: any;
let ajv: Ajv2020;
const answers: Answer[] = [];

async function call(server: TestServer, method: string, target: string, init: { key?: string; body?: string | Uint8Array; contentType?: string } = {}): Promise<Answer> {
  const response = await fetch(`${server.httpUrl}${target}`, {
    method,
    headers: { ...(init.key ? { "x-api-key": init.key } : {}), ...(init.body !== undefined ? { "content-type": init.contentType ?? "application/json" } : {}) },
    ...(init.body !== undefined ? { body: init.body as BodyInit } : {}),
  });
  const answer = { method: method.toLowerCase(), path: target.split("?")[0]!, status: response.status, body: await response.json(), headers: response.headers };
  answers.push(answer);
  return answer;
}
const moderate = (server: TestServer, key: string | undefined, body: unknown) =>
  call(server, "POST", "/v1/moderate", { ...(key ? { key } : {}), body: typeof body === "string" ? body : JSON.stringify(body) });
const moderations = (server: TestServer, key: string | undefined, body: unknown) =>
  call(server, "POST", "/v1/moderations", { ...(key ? { key } : {}), body: typeof body === "string" ? body : JSON.stringify(body) });
const text = (t: string) => ({ type: "text", text: t });
const codeOf = (answer: Answer) => (answer.body as { error?: { code?: string } }).error?.code;

/** A store that starts failing on demand, as PostgreSQL does when it goes away. */
function failingWhenAsked(db: Database): Database & { fail: boolean } {
  const wrapped = {
    fail: false,
    dialect: db.dialect,
    check() { if (wrapped.fail) throw new StorageUnavailableError("the store is down (test)"); },
    query: async (sql: string, params?: never) => (wrapped.check(), db.query(sql, params)),
    execute: async (sql: string, params?: never) => (wrapped.check(), db.execute(sql, params)),
    transaction: async <T>(work: (tx: Database) => Promise<T>) => (wrapped.check(), db.transaction(work)),
    withExclusiveLock: <T>(work: (tx: Database) => Promise<T>) => db.withExclusiveLock(work),
    close: () => db.close(),
  };
  return wrapped as unknown as Database & { fail: boolean };
}

beforeAll(async () => {
  vision = await startFakeOpenAiServer(status(500));
  const main = await startTestServer({ env: { WORKER_THREADS: "1" } });
  const providers = await startTestServer({
    env: {
      WORKER_THREADS: "0", IMAGE_MAX_PIXELS: "5000", IMAGE_QUEUE_MAX: "1",
      VISION_BASE_URL: vision.baseUrl, VISION_MODEL: "vision-openapi", VISION_MAX_RETRIES: "0",
      TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_BASE_URL: vision.baseUrl, TEXT_PROVIDER_API_KEY: "sk-test", TEXT_PROVIDER_ON_FAILURE: "fail", TEXT_PROVIDER_MAX_RETRIES: "0", TEXT_PROVIDER_MODE: "always",
    },
  });
  const broken: TextClassifier = { id: "broken", classify: () => { throw new Error("classifier bug (test)"); } };
  const limiterDown: RateLimiter = {
    consume: () => Promise.reject(new RateLimiterUnavailableError("redis is down (test)")),
    checkHealth: () => Promise.reject(new RateLimiterUnavailableError("redis is down (test)")),
    close: async () => {},
  };
  // The provider fails and the embedded verdict stands alone: /v1/moderations says so in not_seconded.
  const fallback = await startTestServer({
    env: { WORKER_THREADS: "0", TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_BASE_URL: vision.baseUrl, TEXT_PROVIDER_API_KEY: "sk-test", TEXT_PROVIDER_MAX_RETRIES: "0", TEXT_PROVIDER_MODE: "always" },
  });
  const faults = await startTestServer({ env: { WORKER_THREADS: "0" }, overrides: { textClassifier: broken } });
  const noLimiter = await startTestServer({ env: { WORKER_THREADS: "0" }, overrides: { rateLimiter: limiterDown } });
  const storeDir = (await import("node:fs/promises")).mkdtemp((await import("node:path")).join((await import("node:os")).tmpdir(), "openapi-store-"));
  const store = failingWhenAsked(await openDatabase({ databaseUrl: undefined, dataDir: await storeDir }));
  const storeDown = await startTestServer({ env: { WORKER_THREADS: "0" }, overrides: { db: store, rateLimiter: createMemoryRateLimiter() } });
  servers.push(main, providers, fallback, faults, noLimiter, storeDown);

  const { key } = await main.createAccount("enterprise", 1_000_000);
  const { key: oneCall } = await main.createAccount("enterprise", 1);
  const { key: providersKey } = await providers.createAccount("enterprise", 1_000_000);
  const { key: faultsKey } = await faults.createAccount("enterprise", 1_000_000);
  const { key: noLimiterKey } = await noLimiter.createAccount("enterprise", 1_000_000);
  const { key: storeKey } = await storeDown.createAccount("enterprise", 1_000_000);

  // Successes.
  await moderate(main, key, { input: [text("see you tomorrow"), text("I will hurt you")] });
  await moderate(main, key, { input: [{ type: "image", base64: dataUri("image/png", await png(32, 24)) }] });
  await call(main, "GET", "/v1/usage?granularity=hour", { key });
  await moderations(main, key, { model: "omni-moderation-latest", input: "see you tomorrow" });
  await moderations(main, key, { input: [text("a picture"), { type: "image_url", image_url: { url: dataUri("image/png", await png(32, 24)) } }] });
  // A string the text model does not evaluate: the result carries the service's not_evaluated.
  await moderations(main, key, { input: ["see you tomorrow", "Je vais te retrouver ce soir et tu vas le regretter."] });
  const { key: fallbackKey } = await fallback.createAccount("enterprise", 1_000_000);
  const unseconded = await moderations(fallback, fallbackKey, { input: "see you tomorrow" });
  expect((unseconded.body as { results: { not_seconded?: unknown }[] }).results[0]!.not_seconded).toEqual({ items: [{ index: 0, error_code: "provider_unavailable" }] });
  await call(main, "GET", "/.well-known/jwks.json");
  await call(main, "GET", "/healthz");
  await call(main, "GET", "/readyz");
  await call(noLimiter, "GET", "/readyz"); // 503: a fail-closed limiter that does not answer

  // Every error code a documented route answers.
  await moderate(main, key, "{\"input\":[");
  await call(main, "GET", "/v1/usage?granularity=week", { key });
  await moderate(main, key, { input: Array.from({ length: 11 }, () => text("hi")) });
  await moderate(main, key, { input: [text("x".repeat(10_001))] });
  // A GIF declared as PNG: invalid_image (400), as the README's error table says.
  expect(codeOf(await moderate(main, key, { input: [{ type: "image", base64: dataUri("image/png", await gif(16, 16)) }] }))).toBe("invalid_image");
  await moderate(main, key, { input: [{ type: "image", base64: dataUri("image/bmp", await png(16, 16)) }] });
  await moderate(providers, providersKey, { input: [{ type: "image", base64: dataUri("image/png", await png(100, 100)) }] });
  await call(main, "POST", "/v1/moderate", { key, body: new Uint8Array(MAX_REQUEST_BYTES + 1) });
  await call(main, "POST", "/v1/moderate", { key, body: "{}", contentType: "text/plain" });
  await moderate(main, undefined, { input: [text("hi")] });
  await moderate(main, "mk_not_a_key", { input: [text("hi")] });
  await moderate(main, oneCall, { input: [text("hi")] });
  await moderate(main, oneCall, { input: [text("hi")] });
  await moderate(main, key, { input: [{ type: "image", base64: dataUri("image/png", await png(32, 24)) }], analyze_images: true });
  await moderate(providers, providersKey, { input: [{ type: "image", base64: dataUri("image/png", await png(32, 24)) }], analyze_images: true });
  await moderate(main, key, { input: [text("hi")], text_provider_mode: "always" });
  await moderate(providers, providersKey, { input: [text("hi")], text_provider_mode: "always" });
  // The image pool takes one job and queues one (IMAGE_QUEUE_MAX=1): of six at once, the last are refused.
  const image = { input: [{ type: "image", base64: dataUri("image/png", await png(40, 30)) }] };
  await Promise.all(Array.from({ length: 6 }, () => moderate(providers, providersKey, image)));
  await moderate(faults, faultsKey, { input: [text("hi")] });
  // POST /v1/moderations: its errors in OpenAI's shape, a few of each kind.
  await moderations(main, key, "{\"input\":");
  await moderations(main, key, { input: Array.from({ length: 11 }, () => "hi") });
  await moderations(main, key, { input: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] });
  await moderations(main, key, { input: [{ type: "image_url", image_url: { url: dataUri("image/bmp", await png(16, 16)) } }] });
  await call(main, "POST", "/v1/moderations", { key, body: "{}", contentType: "text/plain" });
  await moderations(main, undefined, { input: "hi" });
  await moderations(providers, providersKey, { input: "hi" });
  await moderations(faults, faultsKey, { input: "hi" });
  await moderate(noLimiter, noLimiterKey, { input: [text("hi")] });
  await call(storeDown, "GET", "/v1/usage", { key: storeKey }); // warms the caller cache while the store answers
  store.fail = true;
  await call(storeDown, "GET", "/v1/usage", { key: storeKey });
  store.fail = false;

  doc = await (await fetch(`${main.httpUrl}/openapi.json`)).json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, "openapi.json");
}, 180_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await vision?.close();
});

function validate(pointer: string, data: unknown): string | undefined {
  const validator = ajv.getSchema(`openapi.json#${pointer}`);
  if (!validator) return `no schema at ${pointer}`;
  return validator(data) ? undefined : ajv.errorsText(validator.errors);
}
const escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document of the JSON routes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/.well-known/jwks.json", "/healthz", "/readyz", "/v1/moderate", "/v1/moderations", "/v1/usage"]);
    expect(doc.paths["/v1/moderate"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ModerateRequestInput" });
  });

  it("describes every real answer: successes and errors, by route and status", () => {
    expect(answers.filter((a) => a.status < 300).map((a) => `${a.method} ${a.path} ${a.status}`)).toEqual(expect.arrayContaining([
      "post /v1/moderate 200", "post /v1/moderations 200", "get /v1/usage 200", "get /.well-known/jwks.json 200", "get /healthz 200", "get /readyz 200",
    ]));
    const problems = answers.flatMap((answer) => {
      const pointer = `/paths/${escape(answer.path)}/${answer.method}/responses/${answer.status}/content/application~1json/schema`;
      const problem = validate(pointer, answer.body);
      return problem ? [`${answer.method} ${answer.path} ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("says in the request schema the limits the server checks: item count, item type, text length, provider mode", () => {
    const request = "/components/schemas/ModerateRequestInput";
    expect(validate(request, { input: [{ type: "text", text: "x".repeat(10_000) }], text_provider_mode: "off" })).toBeUndefined();
    for (const refused of [
      { input: [] },
      { input: Array.from({ length: 11 }, () => ({ type: "text", text: "x" })) },
      { input: [{ type: "video", text: "x" }] },
      { input: [{ type: "text", text: "x".repeat(10_001) }] },
      { input: [{ type: "text", text: "x" }], text_provider_mode: "bogus" },
    ]) expect(validate(request, refused), JSON.stringify(refused).slice(0, 80)).toBeDefined();
    // Code points, as the server counts: 10,000 emoji are 20,000 UTF-16 units, and within the limit.
    expect(validate(request, { input: [{ type: "text", text: "\u{1F600}".repeat(10_000) }] })).toBeUndefined();
  });

  it("says the same limits in the OpenAI route's request schema, for each shape of input", () => {
    const request = "/paths/~1v1~1moderations/post/requestBody/content/application~1json/schema";
    const part = (text: string) => ({ type: "text", text });
    for (const accepted of [{ input: "x".repeat(10_000) }, { input: Array.from({ length: 10 }, () => "hi") }, { input: [part("hi")], model: "omni-moderation-latest" }]) {
      expect(validate(request, accepted), JSON.stringify(accepted).slice(0, 80)).toBeUndefined();
    }
    for (const refused of [
      { input: "" }, { input: "x".repeat(10_001) }, { input: [] }, { input: Array.from({ length: 11 }, () => "hi") },
      { input: ["hi", ""] }, { input: [part("x".repeat(10_001))] }, { input: Array.from({ length: 11 }, () => part("hi")) },
    ]) expect(validate(request, refused), JSON.stringify(refused).slice(0, 80)).toBeDefined();
  });

  it("lists headers every real answer carries (signature, error code, rate limit, Retry-After)", () => {
    const missing = answers.flatMap((answer) => {
      const documented = doc.paths[answer.path]?.[answer.method]?.responses?.[String(answer.status)]?.headers ?? {};
      // Always there: the id, the signature and, on errors, the code. Rate-limit fields,
      // Retry-After and the account (once a key was found live) come with some answers only
      // (documented, not required).
      const expected = Object.keys(documented).filter((name) => !/ratelimit|retry-after|moderation-account/i.test(name));
      return expected.filter((name) => !answer.headers.has(name)).map((name) => `${answer.method} ${answer.path} ${answer.status}: ${name}`);
    });
    expect(missing).toEqual([]);
    const error = doc.paths["/v1/moderate"].post.responses["401"].headers;
    expect(Object.keys(error)).toEqual(expect.arrayContaining(["X-Error-Code", "Signature", "Content-Digest"]));
  });

  it("has every code of the error table produced by a real request and described", () => {
    const produced = new Set(answers.map(codeOf).filter((code): code is string => code !== undefined));
    // A new code of the error table must be produced above by a real request on a documented
    // route, or listed here with where it is answered. The last two are checked against the
    // shared Error schema below.
    const elsewhere: ErrorCode[] = [
      "forbidden", "email_taken", "too_many_keys", "invalid_credentials", // the dashboard (and modctl)
      "deadline_exceeded", "unsupported_encoding", "unknown_method", // RPC only
      "request_timeout", // a raw HTTP/1.1 answer before routing (framework-errors.test.ts)
      // Policy validation (src/policies, issue 18): answered by PolicyService's RPCs, outside this document.
      "invalid_policy", "policy_unknown_category", "policy_invalid_threshold", "policy_list_too_large", "policy_term_invalid",
      "not_found", "method_not_allowed", // no route, another method
    ];
    const missing = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !produced.has(code) && !elsewhere.includes(code));
    expect(missing).toEqual([]);
    for (const code of produced) expect(code in ERROR_CODES, code).toBe(true);
  });

  it("gives the error table's status to each code, and the Error schema to answers off the documented routes", async () => {
    for (const answer of answers) {
      const code = codeOf(answer);
      // The OpenAI route answers a bad image 400 for OpenAI's SDKs (docs/openai-compatibility.md).
      const statusOf = API_ROUTES.find((r) => r.method === answer.method && r.path === answer.path)?.statusOf;
      if (code) expect(answer.status, code).toBe(statusOf ? statusOf(code as ErrorCode) : ERROR_CODES[code as ErrorCode].http);
    }
    const main = servers[0]!;
    for (const [method, path, code] of [["GET", "/no/such/route", "not_found"], ["GET", "/v1/moderate", "method_not_allowed"]] as const) {
      const response = await fetch(`${main.httpUrl}${path}`, { method });
      const body = await response.json();
      expect(body.error.code).toBe(code);
      expect(validate("/components/schemas/Error", body)).toBeUndefined();
    }
    expect(validate("/components/schemas/Error", { error: { code: "no_such_code", message: "x" } })).toBeDefined();
  });

  it("follows the proto: a field added to ModerateResponse would be refused by additionalProperties", () => {
    const success = answers.find((a) => a.path === "/v1/moderate" && a.status === 200)!;
    const pointer = "/paths/~1v1~1moderate/post/responses/200/content/application~1json/schema";
    expect(validate(pointer, success.body)).toBeUndefined();
    expect(validate(pointer, { ...(success.body as object), surprise: 1 })).toBeDefined();
  });
});
