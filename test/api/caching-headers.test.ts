import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Found by an audit of HTTP semantics (session 52): answers carried no Cache-Control, and a stock
// Varnish in front served one account's GET /v1/usage (keyed by X-API-Key, on which no cache
// varies) to another account and to callers with no key; /readyz and /metrics were cached too.

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.createAccount("pro"));
});
afterAll(() => server?.close());

const SIGNED = { "cache-control": "no-store, no-transform", "x-content-type-options": "nosniff" };
const headersOf = (response: Response, names: string[]) => Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));

it("marks every signed answer never to be stored or transformed, success and error alike", async () => {
  const moderate = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text: "hello" }] }),
  });
  const usage = await fetch(`${server.httpUrl}/v1/usage`, { headers: { "x-api-key": key } });
  const noKey = await fetch(`${server.httpUrl}/v1/usage`);
  const unknown = await fetch(`${server.httpUrl}/no/such/path`);
  for (const response of [moderate, usage, noKey, unknown]) {
    expect(headersOf(response, Object.keys(SIGNED)), response.url).toEqual(SIGNED);
    expect(response.headers.get("signature")).toBeTruthy();
  }
  expect([moderate.status, usage.status, noKey.status, unknown.status]).toEqual([200, 200, 401, 404]);
});

it("keeps health and metrics out of caches, and says when to ask again while unready", async () => {
  for (const path of ["/healthz", "/readyz", "/metrics"]) {
    const response = await fetch(`${server.httpUrl}${path}`);
    expect(response.headers.get("cache-control"), path).toBe("no-store");
  }
  // The public documents stay cacheable for five minutes.
  expect((await fetch(`${server.httpUrl}/.well-known/jwks.json`)).headers.get("cache-control")).toBe("public, max-age=300");
});

it("signs a HEAD answer to an unknown path over the body it sends: none", async () => {
  const response = await fetch(`${server.httpUrl}/no/such/path`, { method: "HEAD" });
  expect(response.status).toBe(404);
  expect(response.headers.get("x-error-code")).toBe("not_found");
  expect(response.headers.get("content-digest")).toBe(`sha-256=:${createHash("sha256").update("").digest("base64")}:`);
});

it("names the codings it takes when it refuses a compressed body", async () => {
  const response = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip", "x-api-key": key }, body: "x",
  });
  expect(response.status).toBe(415);
  expect(response.headers.get("accept-encoding")).toBe("identity");
});

it("answers a conditional GET of a public document with 304 while it has not changed", async () => {
  for (const path of ["/.well-known/jwks.json", "/openapi.json"]) {
    const first = await fetch(`${server.httpUrl}${path}`);
    const tag = first.headers.get("etag");
    expect(tag, path).toMatch(/^"[\w-]{22}"$/);
    const body = await first.text();
    expect(tag).toBe(`"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`);
    // The tag alone, weak, or in a list with others: each is the same version (weak comparison).
    for (const ifNoneMatch of [tag!, `W/${tag}`, `"other", ${tag}`, "*"]) {
      const again = await fetch(`${server.httpUrl}${path}`, { headers: { "if-none-match": ifNoneMatch } });
      expect([again.status, again.headers.get("etag"), again.headers.get("cache-control"), await again.text()], `${path} ${ifNoneMatch}`).toEqual([304, tag, "public, max-age=300", ""]);
    }
    const stale = await fetch(`${server.httpUrl}${path}`, { headers: { "if-none-match": '"an-older-version"' } });
    expect([stale.status, await stale.text()]).toEqual([200, body]);
  }
});
