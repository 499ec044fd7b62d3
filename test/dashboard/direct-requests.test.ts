import { request } from "node:http";
import { connect as connectTcp } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Database } from "../../src/storage/database.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { gzipSync } from "node:zlib";
import { connect } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { RateLimiterUnavailableError } from "../../src/rate-limit/rate-limiter.js";
import { parseExposition, valueOf } from "../observability/scrape.js";
import { createFormClient } from "./form-client.js";

// The dashboard as a non-browser client can reach it: forms posted directly, assets asked for by
// any name (the browser path: *.browser.test.ts).
describe("dashboard, requested directly", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUPS_PER_IP: "1000" } });
  });
  afterAll(() => server.close());

  it("takes a form posted over HTTP/2 from its own origin, port included (it was refused 403: no Host header there)", async () => {
    const origin = server.grpcUrl.replace(/\/$/, "");
    const session = connect(origin);
    const request = (headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
        const stream = session.request(headers);
        let text = "";
        let head: Record<string, unknown> = {};
        stream.on("response", (h) => (head = h));
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => (text += chunk));
        stream.on("end", () => resolve({ status: Number(head[":status"]), headers: head, text }));
        stream.on("error", reject);
        stream.end(body);
      });
    try {
      const page = await request({ ":method": "GET", ":path": "/dashboard/signup" });
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const cookies = ([] as string[]).concat(page.headers["set-cookie"] as string | string[]).map((c) => c.split(";")[0]).join("; ");
      const form = new URLSearchParams({ _csrf: csrf, email: "over-h2@example.test", password: "a long enough password 1" }).toString();
      const posted = await request({ ":method": "POST", ":path": "/dashboard/signup", origin, cookie: cookies, "content-type": "application/x-www-form-urlencoded" }, form);
      expect(posted.status).toBe(303);
      expect(await server.ctx.accounts.findAccountByEmail("over-h2@example.test")).toBeDefined();
    } finally {
      session.close();
    }
  });

  it("answers a form over its size limit, and any method at an unknown address, with a page, not the API's JSON", async () => {
    const client = createFormClient(server.httpUrl);
    await client.get("/dashboard/login");
    const big = await client.post("/dashboard/login", { email: "big@example.test", password: "x".repeat(20_000) });
    expect(big.status).toBe(413);
    expect(big.headers.get("content-type")).toMatch(/^text\/html/);
    expect(big.headers.get("x-error-code")).toBe("payload_too_large");
    expect(big.headers.get("content-security-policy")).toBeTruthy();
    for (const method of ["POST", "PUT", "DELETE"]) {
      const response = await fetch(`${server.httpUrl}/dashboard/nope`, { method, headers: { origin: server.httpUrl } });
      expect(response.status, method).toBe(method === "POST" ? 415 : 404);
      expect(response.headers.get("content-type"), method).toMatch(/^text\/html/);
    }
    // Counted under their codes (the pages' refusals read code="" in the metrics and the log).
    const samples = parseExposition(await server.ctx.metrics.render()).filter((s) => s.name === "moderation_requests_total" && s.labels.route === "/dashboard/*");
    expect(samples.filter((s) => s.labels.status === "404").map((s) => s.labels.code)).toEqual(["not_found"]);
  });

  it("makes one live key per create-key form: a double post or a resend leaves the key whose secret the last page shows", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-once@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-once@example.test"))!.id;
    const live = async () => (await server.ctx.accounts.listKeys(accountId)).filter((k) => k.revokedAt === null);
    const secretOf = (html: string) => /id="new-key-secret"[^>]*>\s*([^<\s]+)/.exec(html)?.[1];
    const before = (await live()).length;
    const page = await client.get("/dashboard/keys");
    const once = /name="once" value="([^"]+)"/.exec(page.html)![1]!;
    // A double click: two posts of one form at once (each made a live key), then a resend.
    const [a, b] = await Promise.all([client.post("/dashboard/keys", { name: "twice", once }), client.post("/dashboard/keys", { name: "twice", once })]);
    const resent = await client.post("/dashboard/keys", { name: "twice", once });
    expect([a.status, b.status, resent.status]).toEqual([200, 200, 200]);
    const keys = await live();
    expect(keys.length).toBe(before + 1);
    expect(secretOf(resent.html)!.startsWith(keys.find((k) => k.name === "twice")!.prefix)).toBe(true);
    // Another rendering of the form is another key.
    await client.get("/dashboard/keys");
    const other = /name="once" value="([^"]+)"/.exec((await client.get("/dashboard/keys")).html)![1]!;
    expect((await client.post("/dashboard/keys", { name: "again", once: other })).status).toBe(200);
    expect((await live()).length).toBe(before + 2);
  });

  it("answers a browser's /favicon.ico with no content, cached (it was the API's JSON 404, a console error on every page)", async () => {
    const response = await fetch(`${server.httpUrl}/favicon.ico`);
    expect([response.status, response.headers.get("cache-control"), await response.text()]).toEqual([204, "public, max-age=86400", ""]);
  });

  it("saves only on the Save button: no action or another is refused (400) and nothing is stored", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-actions@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-actions@example.test"))!.id;
    for (const action of [undefined, "delete"]) {
      await client.get("/dashboard/policy");
      const page = await client.post("/dashboard/policy", { t_hate: "0.5", ...(action ? { action } : {}) });
      expect(page.status, String(action)).toBe(400);
      expect(page.html).toContain("invalid_request");
    }
    expect(await server.ctx.policies.current({ accountId })).toBeUndefined();
  });

  it("reads thresholds as the API does: exponents and a trailing point are numbers", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-numbers@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-numbers@example.test"))!.id;
    await client.get("/dashboard/policy");
    const saved = await client.post("/dashboard/policy", { t_hate: "5e-1", t_sexual: "1.", t_violence: "OFF", action: "save" });
    expect(saved.status).toBe(303);
    expect((await server.ctx.policies.current({ accountId }))?.thresholds).toEqual({ hate: 0.5, sexual: 1, violence: "off" });
    await client.get("/dashboard/policy");
    const refused = await client.post("/dashboard/policy", { t_hate: "0.5x", action: "save" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("policy_invalid_threshold");
  });

  it("Try draft moderates as an API call does: within the plan's limit, and counted in usage", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-try@example.test");
    const account = (await server.ctx.accounts.findAccountByEmail("form-try@example.test"))!;
    expect(account.requestsPerMinute).toBe(10);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      await client.get("/dashboard/policy");
      const page = await client.post("/dashboard/policy", { text: "you stupid idiot", action: "try" });
      statuses.push(page.status);
      // The API's rate-limit headers, and Retry-After on a refusal (a 429 had none; audit, session 51).
      expect(page.headers.get("x-ratelimit-limit")).toBe("10");
      if (page.status === 200) expect(page.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
      if (page.status === 429) {
        expect(page.html).toContain("rate_limit_exceeded");
        expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    // Over the limit, a draft is not even validated: the refusal is the limit's.
    await client.get("/dashboard/policy");
    const invalid = await client.post("/dashboard/policy", { t_hate: "2", text: "hi", action: "try" });
    expect(invalid.status).toBe(429);
    expect(invalid.html).not.toContain("policy_invalid_threshold");
    await server.ctx.meter.flush();
    const usage = await server.ctx.usage.read(account.id, "day", 0, Date.now() + 86_400_000);
    expect(usage.totals).toMatchObject({ requests: 10, textItems: 10 });
  });

  // Found by an audit (session 51): French text was shown as "not flagged" over an empty table, and
  // a blank box was tried as " " (the model's scores for no text, "not flagged").
  it("Try draft says when the model did not read the text, and refuses a blank one uncharged", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-try-language@example.test");
    await client.get("/dashboard/policy");
    const french = await client.post("/dashboard/policy", { text: "Je vais te tuer ce soir, sale connard.", action: "try" });
    expect(french.status).toBe(200);
    expect(french.html).toContain("Under this draft: not evaluated (the model does not cover language fr)");
    expect(french.html).toContain("Detected language: fr");
    await client.get("/dashboard/policy");
    const english = await client.post("/dashboard/policy", { text: "have a nice day", action: "try" });
    expect(english.html).toContain("Under this draft: not flagged");
    expect(english.html).toContain("Detected language: en");
    await client.get("/dashboard/policy");
    const blank = await client.post("/dashboard/policy", { text: "  \n ", action: "try" });
    expect(blank.status).toBe(400);
    expect(blank.html).toContain("Enter a text to try the draft on. (invalid_request)");
    expect(blank.headers.get("x-ratelimit-limit")).toBeNull();
    // Punctuation alone has nothing to judge either (a review's finding: it was shown as partly read).
    await client.get("/dashboard/policy");
    const marks = await client.post("/dashboard/policy", { text: "!!! ...", action: "try" });
    expect(marks.status).toBe(400);
    expect(marks.html).toContain("Enter a text to try the draft on. (invalid_request)");
  });

  it("shows a policy set through the API so that saving it unchanged keeps every term whole", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-bars@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-bars@example.test"))!.id;
    const blockList = [{ term: "nice | hate", category: "custom" }, { term: "zig|zag", category: "custom" }, { term: "camper", category: "hate" }, { term: "lurker", category: "custom" }];
    await server.ctx.policies.update({ accountId }, { blockList }, "test");
    const page = await client.get("/dashboard/policy");
    const block = /<textarea[^>]*name="block"[^>]*>([^<]*)<\/textarea>/.exec(page.html)![1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    const saved = await client.post("/dashboard/policy", { block, t_sexual: "0.4", action: "save" });
    expect(saved.status).toBe(303);
    expect((await server.ctx.policies.current({ accountId }))?.blockList).toEqual(blockList);
  });

  it("saves a policy of thousands of terms; without a session the large form is refused unread", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-large@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-large@example.test"))!.id;
    // 3,000 terms of 60 characters, 200 KB as a form: past the other forms' 16 KiB.
    const block = Array.from({ length: 3_000 }, (_, i) => `term${String(i).padStart(5, "0")}${"x".repeat(51)} | hate`).join("\n");
    await client.get("/dashboard/policy");
    const saved = await client.post("/dashboard/policy", { block, action: "save" });
    expect(saved.status).toBe(303);
    expect((await server.ctx.policies.current({ accountId }))?.blockList).toHaveLength(3_000);
    const stranger = createFormClient(server.httpUrl);
    await stranger.get("/dashboard/login");
    const refused = await stranger.post("/dashboard/policy", { block, action: "save" });
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toBe("/dashboard/login");
  });

  // Found by an audit: the field was split into lines before the list's limit was checked, so a
  // 16 MB field of "a\n" built four million lines and held the event loop 3.7 s.
  it("counts a list's non-blank lines before building them, as the API counts its terms", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-lines@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-lines@example.test"))!.id;
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    await client.get("/dashboard/policy");
    const over = await client.post("/dashboard/policy", { allow: terms(1_001).join("\n \r\n\t\n"), action: "save" });
    expect(over.status).toBe(400);
    expect(over.html).toContain("The allow list holds at most 1000 terms (got 1001).");
    // Blank and white-space lines are not terms: 1,000 terms among them are saved.
    await client.get("/dashboard/policy");
    const saved = await client.post("/dashboard/policy", { allow: `\n\u00a0\n${terms(1_000).join("\r\n\u3000\n\n")}\n  `, action: "save" });
    expect(saved.status).toBe(303);
    expect((await server.ctx.policies.current({ accountId }))?.allowList).toHaveLength(1_000);
  });

  it("refuses a form of more fields than any dashboard form has, before decoding it (4 million fields took 1.6 s of the event loop)", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-fields@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-fields@example.test"))!.id;
    await client.get("/dashboard/policy");
    const fields = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f${i}`, "1"]));
    const refused = await client.post("/dashboard/policy", { ...fields, block: "banana", action: "save" });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-error-code")).toBe("invalid_request");
    expect(refused.html).toContain("at most 64 fields");
    expect(await server.ctx.policies.current({ accountId })).toBeUndefined();
    // The same form with its own fields only is saved.
    await client.get("/dashboard/policy");
    expect((await client.post("/dashboard/policy", { block: "banana", action: "save" })).status).toBe(303);
  });

  it("takes one policy form per account at a time: a second sent while the first is still arriving is refused unread (429)", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-one-at-a-time@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-one-at-a-time@example.test"))!.id;
    await client.get("/dashboard/policy");
    const body = new URLSearchParams({ _csrf: client.csrf, block: "first", action: "save" }).toString();
    const { hostname, port } = new URL(server.httpUrl);
    // The first post's headers and half its body; the rest comes after the second post is answered.
    const first = request({ hostname, port, path: "/dashboard/policy", method: "POST", headers: {
      cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join("; "), origin: server.httpUrl,
      "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length),
    } });
    const firstAnswer = new Promise<number>((resolve, reject) => {
      first.on("response", (response) => { response.resume(); resolve(response.statusCode!); });
      first.on("error", reject);
    });
    first.write(body.slice(0, 10));
    // Until the first post's headers have reached the route (a loaded machine may take a while),
    // a second is taken; from then on, it is refused.
    let second = await client.post("/dashboard/policy", { block: "second", action: "save" });
    for (const until = Date.now() + 10_000; second.status !== 429 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      second = await client.post("/dashboard/policy", { block: "second", action: "save" });
    }
    expect(second.status).toBe(429);
    expect(second.headers.get("x-error-code")).toBe("rate_limit_exceeded");
    first.end(body.slice(10));
    expect(await firstAnswer).toBe(303);
    expect((await server.ctx.policies.current({ accountId }))?.blockList).toEqual([{ term: "first", category: "custom" }]);
    // Once the first is answered, the next is taken.
    await client.get("/dashboard/policy");
    expect((await client.post("/dashboard/policy", { block: "third", action: "save" })).status).toBe(303);
  });

  it("a policy post whose caller hangs up early leaves no lock behind (a response closed before the route ran kept it)", async () => {
    // Session lookups slowed, so each caller below is gone while the server still loads its session.
    const dir = await mkdtemp(path.join(tmpdir(), "moderation-hang-up-"));
    const db = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    const slow: Database = {
      ...db,
      query: async (sql, params) => {
        if (sql.includes("FROM dashboard_sessions")) await new Promise((resolve) => setTimeout(resolve, 150));
        return db.query(sql, params);
      },
    };
    const slowServer = await startTestServer({ env: { SIGNUPS_PER_IP: "1000" }, overrides: { db: slow } });
    try {
      await hangUpsThenSave(slowServer);
    } finally {
      await slowServer.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  async function hangUpsThenSave(server: TestServer): Promise<void> {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-hang-up@example.test");
    await client.get("/dashboard/policy");
    const cookie = [...client.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const { hostname, port } = new URL(server.httpUrl);
    // Headers, then gone while the server still loads the session.
    const sockets = Array.from({ length: 5 }, () => {
      const socket = connectTcp(Number(port), hostname);
      socket.on("error", () => undefined);
      socket.write(`POST /dashboard/policy HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${cookie}\r\nOrigin: ${server.httpUrl}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n`);
      return socket;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const socket of sockets) socket.destroy();
    // Each hang-up releases its hold: a post soon gets through.
    let saved = await client.post("/dashboard/policy", { block: "after", action: "save" });
    for (const until = Date.now() + 10_000; saved.status === 429 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.get("/dashboard/policy");
      saved = await client.post("/dashboard/policy", { block: "after", action: "save" });
    }
    expect(saved.status).toBe(303);
  }

  it("rotating a key carries its policy override to the new secret (the new key was judged without it)", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("rotate-override@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("rotate-override@example.test"))!.id;
    await client.createKey("with-override");
    const [old] = await server.ctx.accounts.listKeys(accountId);
    await server.ctx.policies.update({ accountId, keyId: old!.id }, { blockList: [{ term: "banana", category: "custom" }] }, "test");
    await client.get("/dashboard/keys");
    const rotated = await client.post(`/dashboard/keys/${old!.id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const successor = (await server.ctx.accounts.listKeys(accountId)).find((k) => k.revokedAt === null)!;
    expect(successor.id).not.toBe(old!.id);
    expect((await server.ctx.policies.current({ accountId, keyId: successor.id }))?.blockList).toEqual([{ term: "banana", category: "custom" }]);
    expect(await server.ctx.policies.forCaller(accountId, successor.id)).toBeDefined();
    const change = (await server.ctx.policies.history(accountId)).find((c) => c.keyId === successor.id);
    expect(change).toMatchObject({ version: 1, changedBy: "user:rotate-override@example.test" });
    // A key without an override rotates to one without.
    await client.createKey("plain");
    const plain = (await server.ctx.accounts.listKeys(accountId)).find((k) => k.name === "plain")!;
    await client.get("/dashboard/keys");
    expect((await client.post(`/dashboard/keys/${plain.id}/rotate`, {})).status).toBe(200);
    const plainSuccessor = (await server.ctx.accounts.listKeys(accountId)).find((k) => k.name === "plain" && k.revokedAt === null)!;
    expect(await server.ctx.policies.current({ accountId, keyId: plainSuccessor.id })).toBeUndefined();
  });

  it("refuses a form compressed or in another charset (gzip was read as raw bytes, latin1 as UTF-8)", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-encoding@example.test");
    await client.get("/dashboard/keys");
    const form = new URLSearchParams({ _csrf: client.csrf, name: "café" }).toString();
    const cookie = [...client.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const post = (headers: Record<string, string>, body: string | Uint8Array<ArrayBuffer>) =>
      fetch(`${server.httpUrl}/dashboard/keys`, { method: "POST", redirect: "manual", headers: { cookie, origin: server.httpUrl, "content-type": "application/x-www-form-urlencoded", ...headers }, body });
    for (const [headers, body] of [
      [{ "content-encoding": "gzip" }, new Uint8Array(gzipSync(form))],
      [{ "content-encoding": "br" }, form],
      [{ "content-type": "application/x-www-form-urlencoded; charset=latin1" }, form],
    ] as const) {
      const response = await post(headers, body);
      expect(response.status, JSON.stringify(headers)).toBe(415);
      expect(response.headers.get("x-error-code")).toBe("unsupported_media_type");
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    }
    const accountId = (await server.ctx.accounts.findAccountByEmail("form-encoding@example.test"))!.id;
    expect(await server.ctx.accounts.listKeys(accountId)).toHaveLength(0);
    // The same form as UTF-8, uncompressed (or labelled so), is taken.
    expect((await post({ "content-type": "application/x-www-form-urlencoded; charset=UTF-8", "content-encoding": "identity" }, form)).status).toBe(200);
    expect((await server.ctx.accounts.listKeys(accountId)).map((k) => k.name)).toEqual(["café"]);
  });

  it("a refused form post says its code in X-Error-Code, as the API's errors do", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("form-code@example.test");
    await client.get("/dashboard/policy");
    const expired = await client.post("/dashboard/policy", { t_hate: "0.5", action: "save", _csrf: "stale" });
    expect(expired.status).toBe(403);
    expect(expired.headers.get("x-error-code")).toBe("forbidden");
    await client.get("/dashboard/policy");
    const invalid = await client.post("/dashboard/policy", { t_hate: "2", action: "save" });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("x-error-code")).toBe("policy_invalid_threshold");
  });

  it("an unknown dashboard address is a page with the pages' headers, not the API's JSON echoing the path", async () => {
    const response = await fetch(`${server.httpUrl}/dashboard/nope%3Cscript%3E`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-error-code")).toBe("not_found");
    expect(await response.text()).not.toContain("nope");
    // The API's own unknown paths still answer in the API's shape.
    expect((await fetch(`${server.httpUrl}/v1/nope`)).headers.get("content-type")).toMatch(/json/);
  });

  it("Revoke and Rotate ask first without JavaScript: the confirmation page (GET) names the key and changes nothing", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("confirm-first@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("confirm-first@example.test"))!.id;
    await client.createKey("production");
    const [key] = await server.ctx.accounts.listKeys(accountId);
    // The buttons' forms GET the question; the CSRF token is in the page but disabled, so it never goes into a URL.
    const list = await client.get("/dashboard/keys");
    for (const action of ["revoke", "rotate"]) {
      const form = new RegExp(`<form method="get" action="/dashboard/keys/${key!.id}/${action}"[^>]*data-confirmed-method="post"><input type="hidden" name="_csrf" value="[^"]+" disabled data-confirmed-only>`);
      expect(list.html, action).toMatch(form);
    }
    const keysBefore = await server.ctx.accounts.listKeys(accountId);
    for (const [action, question, button] of [["revoke", "Revoke", "Revoke key"], ["rotate", "Rotate", "Rotate key"]] as const) {
      const page = await client.get(`/dashboard/keys/${key!.id}/${action}`);
      expect(page.status, action).toBe(200);
      expect(page.html).toContain(`<h1 id="confirm-question">${question} “production” (${key!.prefix}…)?</h1>`);
      // The answer posts the action (behind the CSRF check, as before), or goes back.
      expect(page.html).toMatch(new RegExp(`<form method="post" action="/dashboard/keys/${key!.id}/${action}"[^>]*><input type="hidden" name="_csrf" value="${client.csrf}">\\s*<button type="submit"[^>]*>${button}</button>\\s*<a href="/dashboard/keys">Cancel</a>`));
      expect(page.html).not.toContain("data-confirm=");
      // HEAD, and a GET with a CSRF token in its query, change nothing either.
      expect((await fetch(`${server.httpUrl}/dashboard/keys/${key!.id}/${action}`, { method: "HEAD", headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join("; ") } })).status).toBe(200);
      expect((await client.get(`/dashboard/keys/${key!.id}/${action}?_csrf=${encodeURIComponent(client.csrf)}`)).status).toBe(200);
    }
    expect(await server.ctx.accounts.listKeys(accountId)).toEqual(keysBefore);
    expect(keysBefore.filter((k) => k.revokedAt === null)).toHaveLength(1);
    // The answer's POST still needs the session's token.
    expect((await client.post(`/dashboard/keys/${key!.id}/revoke`, { _csrf: "stale" })).status).toBe(403);
    expect((await server.ctx.accounts.getKey(key!.id))!.revokedAt).toBeNull();
    await client.get(`/dashboard/keys/${key!.id}/revoke`);
    expect((await client.post(`/dashboard/keys/${key!.id}/revoke`, {})).headers.get("location")).toBe("/dashboard/keys?revoked=1");
    // Asked again for a key now revoked, or for none of the account's: said so, nothing asked.
    const again = await client.get(`/dashboard/keys/${key!.id}/rotate`);
    expect([again.status, again.html.includes("Key already revoked"), again.html.includes("confirm-question")]).toEqual([409, true, false]);
    expect((await client.get("/dashboard/keys/key_nope/revoke")).status).toBe(404);
    const other = createFormClient(server.httpUrl);
    await other.signup("confirm-first-other@example.test");
    const page = await other.get(`/dashboard/keys/${key!.id}/rotate`);
    expect([page.status, page.html.includes("production")]).toEqual([404, false]);
    // Logged out: to the log-in page.
    expect((await fetch(`${server.httpUrl}/dashboard/keys/${key!.id}/revoke`, { redirect: "manual" })).headers.get("location")).toBe("/dashboard/login");
  });

  it("a page asked for with a method it does not take is 405 naming the ones it does (it was 404, no such page)", async () => {
    for (const [method, path, allow] of [["PUT", "/dashboard/keys", "GET, HEAD, POST"], ["DELETE", "/dashboard/keys/key_x/revoke", "GET, HEAD, POST"], ["PATCH", "/dashboard/usage", "GET, HEAD"]] as const) {
      const response = await fetch(`${server.httpUrl}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("allow")).toBe(allow);
      expect(response.headers.get("x-error-code")).toBe("method_not_allowed");
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    }
    expect((await fetch(`${server.httpUrl}/dashboard/no-such-page`, { method: "PUT" })).status).toBe(404);
  });

  it("a malformed dashboard URL is refused with a page, the API's malformed URLs with its JSON", async () => {
    for (const path of ["/dashboard/keys/%ZZ/revoke", "/dashboard/keys/%ED%A0%80/rotate"]) {
      const response = await fetch(`${server.httpUrl}${path}`, { method: "POST" });
      expect(response.status, path).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(response.headers.get("x-error-code")).toBe("invalid_request");
      expect(await response.text()).toContain("The request URL is malformed.");
    }
    const api = await fetch(`${server.httpUrl}/v1/moderate%ZZ`, { method: "POST" });
    expect(api.status).toBe(400);
    expect(api.headers.get("content-type")).toMatch(/json/);
  });

  it.each(["__proto__", "constructor", "toString"])("an asset named %s is 404 (a name of Object.prototype made a 500)", async (name) => {
    const response = await fetch(`${server.httpUrl}/dashboard/assets/${name}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("x-error-code")).toBe("not_found");
  });
});

describe("Try draft with the limiter's store down and RATE_LIMIT_FAILURE_MODE=open", () => {
  it("is served and counted in moderation_rate_limit_uncounted_total, as an API call is (it was in neither)", async () => {
    const down = {
      consume: () => Promise.reject(new RateLimiterUnavailableError("store down (test)")),
      checkHealth: () => Promise.reject(new RateLimiterUnavailableError("store down (test)")),
      close: async () => undefined,
    };
    const server = await startTestServer({ env: { RATE_LIMIT_FAILURE_MODE: "open" }, overrides: { rateLimiter: down } });
    try {
      const client = createFormClient(server.httpUrl);
      await client.signup("form-try-open@example.test");
      await client.get("/dashboard/policy");
      const page = await client.post("/dashboard/policy", { text: "hello there", action: "try" });
      expect(page.status).toBe(200);
      const samples = parseExposition(await server.ctx.metrics.render());
      expect(valueOf(samples, "moderation_rate_limit_uncounted_total", {})).toBe(1);
    } finally {
      await server.close();
    }
  });
});
