import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountService } from "../../gen/moderation/v1/account_pb.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { callJson, callModerate } from "../support/protocol-clients.js";
import { startTestServer, type StoreKind, type TestServer } from "../support/test-server.js";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const run = promisify(execFile);

async function getUsage(server: TestServer, key: string | undefined, query = "") {
  const response = await fetch(`${server.httpUrl}/v1/usage${query}`, { headers: key ? { "x-api-key": key } : {} });
  return { status: response.status, body: (await response.json()) as any };
}

describe.each<StoreKind>(["sqlite", "postgres"])("metering and the usage API on %s", (store) => {
  let server: TestServer;
  let a: { accountId: string; key: string; keyId: string };
  let b: { accountId: string; key: string; keyId: string };
  let flaggedA = 0;

  beforeAll(async () => {
    server = await startTestServer({ store });
    a = await server.createAccount("pro");
    b = await server.createAccount("basic");
    // Account A: 4 accepted requests over three protocols; 2 refused ones that must not count.
    const accepted = [
      await callModerate("json", server, { input: [{ type: "text", text: "hello" }, { type: "image", base64: PNG }] }, a.key),
      await callModerate("connect", server, { input: [{ type: "text", text: "hi" }] }, a.key),
      await callModerate("grpc", server, { input: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, a.key),
      await callModerate("grpc-web", server, { input: [{ type: "image", base64: PNG }] }, a.key),
    ];
    for (const outcome of accepted) expect(outcome.ok).toBe(true);
    // "flagged" counts requests whose verdict was flagged: whatever the models said, as the caller saw it.
    flaggedA = accepted.filter((o) => o.ok && o.body.flagged === true).length;
    expect((await callModerate("json", server, { input: [] }, a.key)).ok).toBe(false);
    expect((await callJson(server.httpUrl, {}, a.key, { raw: "{not json" })).ok).toBe(false);
    // Account B: one request.
    expect((await callModerate("json", server, { input: [{ type: "text", text: "x" }] }, b.key)).ok).toBe(true);
  });
  afterAll(() => server.close());

  it("counts accepted requests and their items per account, over every protocol", async () => {
    const { status, body } = await getUsage(server, a.key);
    expect(status).toBe(200);
    expect(body).toMatchObject({ account_id: a.accountId, plan: "pro", requests_per_minute: 300, granularity: "day" });
    expect(body.totals).toEqual({ requests: 4, text_items: 4, image_items: 2, deep_analyses: 0, flagged: flaggedA });
    expect(body.buckets).toHaveLength(1);
    expect(body.buckets[0].start % 86_400).toBe(0);
  });

  it("keeps minute, hour and day buckets that agree", async () => {
    for (const granularity of ["minute", "hour", "day"]) {
      const { body } = await getUsage(server, a.key, `?granularity=${granularity}`);
      expect(body.totals.requests).toBe(4);
      expect(body.granularity).toBe(granularity);
    }
  });

  it("shows an account only its own usage", async () => {
    const { body } = await getUsage(server, b.key);
    expect(body.account_id).toBe(b.accountId);
    expect(body.totals.requests).toBe(1);
  });

  it("honours from/to and refuses bad queries with a stable code", async () => {
    const future = Math.floor(Date.now() / 1000) + 86_400 * 2;
    expect((await getUsage(server, a.key, `?from=${future}&to=${future + 86_400}`)).body.totals.requests).toBe(0);
    expect((await getUsage(server, a.key, `?from=2000-01-01`)).body.totals.requests).toBe(4);
    const bad = await getUsage(server, a.key, "?granularity=week");
    expect(bad).toEqual({ status: 400, body: { error: { code: "invalid_request", message: 'granularity must be "minute", "hour" or "day"; got "week".' } } });
    // Only Unix seconds and ISO 8601: Date.parse alone read these as other dates (2026-06-11, 2001,
    // and 2026-02-30 as 2 March).
    for (const from of ["2026-11-01 junk", "1.5", "-1", "x 5", "2026-02-30", "2025-13-01", "2026-04-31T10:00Z"]) {
      const refused = await getUsage(server, a.key, `?from=${encodeURIComponent(from)}`);
      expect(refused.status, from).toBe(400);
      expect(refused.body.error.message).toContain("must be Unix seconds or an ISO 8601 date");
    }
    expect((await getUsage(server, a.key, `?from=${encodeURIComponent("2000-01-01T00:00:00.000+02:00")}`)).body.totals.requests).toBe(4);
    const backwards = await getUsage(server, a.key, "?from=2000&to=1000");
    expect(backwards.body.error).toEqual({ code: "invalid_request", message: "from must be earlier than to." });
    // 0 is the epoch: it meant "absent" (from=0: the last 30 days; to=0: now, so this answered data).
    expect((await getUsage(server, a.key, "?from=0")).body.totals.requests).toBe(4);
    expect((await getUsage(server, a.key, `?from=${encodeURIComponent("2000-01-01")}&to=0`)).body.error.message).toBe("to must be later than the Unix epoch (1970-01-01).");
  });

  it("refuses a read of more than 10,000 buckets rather than answering them all at once", async () => {
    const c = await server.createAccount("pro");
    // 10,001 hours of usage, written as the metering flush writes it.
    const hour = 3_600_000;
    const start = Date.UTC(2020, 0, 1);
    await server.ctx.usage.add(Array.from({ length: 10_001 }, (_, i) => ({ accountId: c.accountId, minuteStart: start + i * hour, counts: { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 } })));
    const all = await getUsage(server, c.key, `?granularity=hour&from=${start / 1000}`);
    expect(all).toEqual({ status: 400, body: { error: { code: "invalid_request", message: "The range holds more than 10000 hour buckets of usage; ask for a shorter range or a coarser granularity." } } });
    const year = await getUsage(server, c.key, `?granularity=hour&from=${start / 1000}&to=${(start + 10_000 * hour) / 1000}`);
    expect(year.body.buckets).toHaveLength(10_000);
    expect((await getUsage(server, c.key, `?granularity=day&from=${start / 1000}`)).body.totals.requests).toBe(10_001);
    // An exclusive end with a fraction of a second counts the minute it overlaps (it was rounded down: none, or a 400).
    for (const [from, to] of [["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.5Z"], ["2020-01-01T00:00:00.2Z", "2020-01-01T00:00:00.9Z"]]) {
      const minute = await getUsage(server, c.key, `?granularity=minute&from=${encodeURIComponent(from!)}&to=${encodeURIComponent(to!)}`);
      expect(minute.body.buckets, `${from} ${to}`).toEqual([expect.objectContaining({ start: Date.UTC(2020, 0, 1) / 1000, requests: 1 })]);
    }
  }, 120_000);

  it("requires a valid key, through the same chain as Moderate", async () => {
    expect(await getUsage(server, undefined)).toMatchObject({ status: 401, body: { error: { code: "missing_api_key" } } });
    expect(await getUsage(server, "mod_AAAAAAAA_" + "A".repeat(43))).toMatchObject({ status: 401, body: { error: { code: "invalid_api_key" } } });
  });

  // HEAD too: its answer would carry the digest of a body it does not send, which no caller can verify.
  it.each(["POST", "PUT", "DELETE", "HEAD"])("answers %s /v1/usage with method_not_allowed (405), Allow: GET, before reading a key", async (method) => {
    const response = await fetch(`${server.httpUrl}/v1/usage`, { method, headers: { "x-api-key": a.key } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(response.headers.get("x-error-code")).toBe("method_not_allowed");
    if (method !== "HEAD") expect(await response.json()).toEqual({ error: { code: "method_not_allowed", message: "Use GET for /v1/usage." } });
  });

  it("signs its JSON answers, errors included, bound to the request target (path and query)", async () => {
    const jwks = await (await fetch(`${server.httpUrl}/.well-known/jwks.json`)).json();
    for (const [key, status, target] of [[a.key, 200, "/v1/usage"], [a.key, 200, "/v1/usage?granularity=hour&from=2026-11-01"], [undefined, 401, "/v1/usage?granularity=day"]] as const) {
      const response = await fetch(`${server.httpUrl}${target}`, { headers: key ? { "x-api-key": key } : {} });
      expect(response.status).toBe(status);
      const body = new Uint8Array(await response.arrayBuffer());
      const headers = Object.fromEntries(response.headers);
      expect(await verifyModerationResponse({ requestBody: target, status, headers, body, jwks })).toMatchObject({ valid: true });
      // Not valid as the answer to another query, nor to none.
      for (const other of ["", "/v1/usage?granularity=minute", `${target}&to=2026-12-01`]) {
        expect(await verifyModerationResponse({ requestBody: other, status, headers, body, jwks }), other).toMatchObject({ valid: false });
      }
      const altered = new TextEncoder().encode(new TextDecoder().decode(body).replace(/"requests":\d+/, '"requests":999999'));
      if (status === 200) expect(await verifyModerationResponse({ requestBody: target, status, headers, body: altered, jwks })).toMatchObject({ valid: false });
    }
  });

  it("serves AccountService.GetUsage over Connect with the same numbers", async () => {
    const client = createClient(AccountService, createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }));
    const response = await client.getUsage({ granularity: "hour" }, { headers: { "x-api-key": a.key } });
    expect(response.accountId).toBe(a.accountId);
    expect(response.totals?.requests).toBe(4n);
    expect(response.totals?.imageItems).toBe(2n);
    const refused = await client.getUsage({}, { headers: { "x-api-key": "nope" } }).catch((e: unknown) => ConnectError.from(e));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("modctl usage prints the same totals as JSON", async () => {
    await server.ctx.meter.flush();
    const { stdout } = await run("node", ["bin/modctl.mjs", "usage", "--account", a.accountId, "--granularity", "hour"], {
      env: { ...process.env, ...server.env },
    });
    const printed = JSON.parse(stdout);
    expect(printed).toMatchObject({ account_id: a.accountId, granularity: "hour", totals: { requests: 4, text_items: 4, image_items: 2 } });
  });
});
