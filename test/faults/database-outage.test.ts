import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS, type Outcome } from "../support/protocol-clients.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { POSTGRES_URL, startTestServer, type TestServer } from "../support/test-server.js";

// The server reaches the real PostgreSQL through a proxy the test stalls (the database goes
// silent) and cuts (the database is gone). Every protocol and the dashboard must answer 503
// storage_unavailable with Retry-After within the configured timeouts (not hang, not 500),
// /readyz must say unavailable, and service must come back by itself when the database does.

// Short enough for a quick test, long enough that a busy shared machine does not trip them by itself.
const TIMEOUTS = { DATABASE_CONNECT_TIMEOUT_MS: "2000", DATABASE_STATEMENT_TIMEOUT_MS: "1500", DATABASE_QUERY_TIMEOUT_MS: "2000" };
/** The longest one call may take while the database is out: a read timeout plus slack for a busy machine. */
const BOUND_MS = 2_000 + 3_000;
const GRPC_UNAVAILABLE = 14;

let proxy: TcpProxy;
let server: TestServer;
let key: string;
let answered = 0;

beforeAll(async () => {
  const target = new URL(POSTGRES_URL);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(POSTGRES_URL);
  viaProxy.port = String(proxy.port);
  server = await startTestServer({ store: "postgres", env: { DATABASE_URL: viaProxy.toString(), METERING_FLUSH_MS: "100", ...TIMEOUTS } });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
});
afterAll(async () => {
  proxy?.resume();
  await proxy?.restore().catch(() => undefined);
  await server?.close();
  await proxy?.close();
});

const text = { input: [{ type: "text", text: "hello there" }] };

async function timed(protocol: (typeof PROTOCOLS)[number]): Promise<{ outcome: Outcome; ms: number }> {
  const started = performance.now();
  const outcome = await callModerate(protocol, server, text, key);
  if (outcome.ok) answered++;
  return { outcome, ms: performance.now() - started };
}

function expectStorageUnavailable({ outcome, ms }: { outcome: Outcome; ms: number }, protocol: string): void {
  expect(outcome.ok, `${protocol} answered a success while the database was out`).toBe(false);
  if (outcome.ok) return;
  expect({ code: outcome.code, status: outcome.status }).toEqual({ code: "storage_unavailable", status: protocol === "json" ? 503 : GRPC_UNAVAILABLE });
  expect(outcome.headers["retry-after"]).toBe("1");
  expect(outcome.message).toMatch(/database is unavailable/);
  expect(ms).toBeLessThan(BOUND_MS);
}

async function dashboardPage(): Promise<Response> {
  // A well-formed session token makes the page look its session up in the database.
  return fetch(`${server.httpUrl}/dashboard`, { headers: { cookie: `mod_session=${"a".repeat(43)}` }, redirect: "manual" });
}

async function readiness(): Promise<{ status: number; body: { checks: Record<string, string> } }> {
  const response = await fetch(`${server.httpUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { checks: Record<string, string> } };
}

/** /readyz bounds its database check at 1 s: on a busy shared machine one check can miss that, so ask a few times. */
async function eventuallyReady(): Promise<{ status: number; body: { checks: Record<string, string> } }> {
  let last = await readiness();
  for (let i = 0; i < 10 && last.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    last = await readiness();
  }
  return last;
}

/** Polls until every protocol answers 200 again; returns how long that took. */
async function recovery(): Promise<number> {
  const started = performance.now();
  for (;;) {
    const outcomes = await Promise.all(PROTOCOLS.map((p) => timed(p)));
    if (outcomes.every((o) => o.outcome.ok)) return performance.now() - started;
    for (const o of outcomes) if (!o.outcome.ok) expect(o.outcome.code).toBe("storage_unavailable");
    if (performance.now() - started > 15_000) throw new Error("service did not come back within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("PostgreSQL behind a proxy that stalls and cuts", () => {
  it("serves normally through the proxy", async () => {
    // The first calls open the pool's connections; on a busy shared machine one may miss its timeout.
    await recovery();
    expect((await eventuallyReady()).status).toBe(200);
  });

  it("answers 503 storage_unavailable + Retry-After on every protocol while the database is silent, then recovers", async () => {
    proxy.stall();
    // A burst on every protocol at once: all of them wait at most one timeout.
    const burst = await Promise.all(PROTOCOLS.flatMap((p) => [timed(p), timed(p)]));
    burst.forEach((result, i) => expectStorageUnavailable(result, PROTOCOLS[Math.floor(i / 2)]!));
    // Once the database is known to be out, calls fail at once instead of each waiting out a timeout.
    for (const protocol of PROTOCOLS) expectStorageUnavailable(await timed(protocol), protocol);

    const page = await dashboardPage();
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("1");
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/cannot reach its database/);

    const ready = await readiness();
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database).toBe("failing");

    proxy.resume();
    await recovery();
    expect((await eventuallyReady()).status).toBe(200);
  }, 60_000);

  it("answers 503 fast when the database's host is gone (connections reset, new ones refused), then recovers", async () => {
    await proxy.cut();
    const burst = await Promise.all(PROTOCOLS.map((p) => timed(p)));
    burst.forEach((result, i) => expectStorageUnavailable(result, PROTOCOLS[i]!));
    for (const protocol of PROTOCOLS) expectStorageUnavailable(await timed(protocol), protocol);
    expect((await dashboardPage()).status).toBe(503);
    expect((await readiness()).status).toBe(503);

    await proxy.restore();
    await recovery();
    expect((await eventuallyReady()).status).toBe(200);
  }, 60_000);

  it("counted every answered request, the outages notwithstanding", async () => {
    const response = await fetch(`${server.httpUrl}/v1/usage?granularity=minute`, { headers: { "x-api-key": key } });
    expect(response.status).toBe(200);
    const usage = (await response.json()) as { totals: { requests: number } };
    expect(usage.totals.requests).toBe(answered);
  });
});
