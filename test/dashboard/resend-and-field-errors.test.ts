import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/accounts/api-key-format.js";
import { fieldOfPolicyError } from "../../src/dashboard/policy-errors.js";
import { ApiError } from "../../src/errors/api-error.js";
import { validatePolicyRulesCooperatively } from "../../src/policies/policy.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { createFormClient } from "./form-client.js";

// Found by an accessibility and usability audit (2026): a reload re-posted a form and the page did
// not say what that did; server-side errors were not tied to the input they named.
describe("dashboard forms sent again, and errors tied to their inputs", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUPS_PER_IP: "1000" } });
  });
  afterAll(() => server.close());

  const secretOf = (html: string) => /id="new-key-secret"[^>]*>\s*([^<\s]+)/.exec(html)![1]!;
  const keyOf = async (secret: string) =>
    (await server.ctx.db.query<{ id: string; prefix: string }>(`SELECT id, prefix FROM api_keys WHERE secret_hash = $1`, [hashApiKey(secret)]))[0]!;
  /** The attributes of the element whose `name` (or id) is given, as one string. */
  const tagOf = (html: string, attribute: "name" | "id", value: string) => new RegExp(`<(input|textarea)[^>]*\\b${attribute}="${value}"[^>]*>`).exec(html)?.[0] ?? "";

  it("a create-key form sent again says that the key shown before is revoked, naming its prefix", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("resent-key@example.test");
    const form = { name: "prod", once: /name="once" value="([^"]+)"/.exec((await client.get("/dashboard/keys")).html)![1]! };
    const first = await client.post("/dashboard/keys", form);
    expect(first.html).not.toContain("This form was sent again");
    const firstKey = await keyOf(secretOf(first.html));
    const again = await client.post("/dashboard/keys", form);
    expect(again.status).toBe(200);
    expect(again.html).toContain(`This form was sent again: the key shown before (<code>${firstKey.prefix}…</code>) is revoked; use this one.`);
    expect(secretOf(again.html)).not.toBe(secretOf(first.html));
  });

  it("the new-key page's curl line is pasted as is: the dashboard's absolute origin and the real secret", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("curl-line@example.test");
    await client.get("/dashboard/keys");
    const page = await client.post("/dashboard/keys", { name: "curl" });
    const curl = /id="curl-example">([^<]+)</.exec(page.html)![1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    // -s: pasted into a terminal, the answer is not mixed with curl's progress meter.
    expect(curl.startsWith("curl -s ")).toBe(true);
    expect(curl).toContain(`X-API-Key: ${secretOf(page.html)}"`);
    expect(curl.endsWith(` ${server.httpUrl.replace(/\/$/, "")}/v1/moderate`)).toBe(true);
  });

  it("a rotation sent again says the key was already rotated, naming the new key (409, not 'Key not found')", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("rotate-again@example.test");
    const old = await keyOf(await client.createKey("ci"));
    await client.get("/dashboard/keys");
    const rotated = await client.post(`/dashboard/keys/${old.id}/rotate`, {});
    expect(rotated.status).toBe(200);
    const successor = await keyOf(secretOf(rotated.html));
    const again = await client.post(`/dashboard/keys/${old.id}/rotate`, {});
    expect(again.status).toBe(409);
    expect(again.html).toContain("Key already rotated");
    expect(again.html).toContain(`This key (${old.prefix}…) was already rotated; its new secret (${successor.prefix}…) was shown once. Rotate the new key if you did not copy it.`);
    // Revoked by hand, no successor: said plainly too.
    await client.get("/dashboard/keys");
    await client.post(`/dashboard/keys/${successor.id}/revoke`, {});
    const revoked = await client.post(`/dashboard/keys/${successor.id}/rotate`, {});
    expect([revoked.status, revoked.html.includes("Key already revoked")]).toEqual([409, true]);
    // A key that does not exist is still "not found".
    expect((await client.post("/dashboard/keys/key_nope/rotate", {})).status).toBe(404);
  });

  it("saving the policy redirects (a reload saved a duplicate version), and an unchanged draft stores nothing", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("policy-prg@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("policy-prg@example.test"))!.id;
    await client.get("/dashboard/policy");
    const saved = await client.post("/dashboard/policy", { t_hate: "0.4", block: "camper | harassment", action: "save" });
    expect([saved.status, saved.headers.get("location")]).toEqual([303, "/dashboard/policy?saved=1"]);
    expect((await client.get("/dashboard/policy?saved=1")).html).toContain("Saved as version 1. It applies to your next request.");
    // The same draft again (a resend): no version 2.
    const again = await client.post("/dashboard/policy", { t_hate: "0.4", block: "camper | harassment", action: "save" });
    expect([again.status, again.headers.get("location")]).toEqual([303, "/dashboard/policy?unchanged=1"]);
    expect((await client.get("/dashboard/policy?unchanged=1")).html).toContain("No change: version 1 is in force.");
    expect((await server.ctx.policies.history(accountId)).length).toBe(1);
    expect((await client.post("/dashboard/policy", { t_hate: "0.5", block: "camper | harassment", action: "save" })).headers.get("location")).toBe("/dashboard/policy?saved=2");
  });

  it("marks the threshold or list a policy refusal names, focuses it, and drops the API's RPC remark", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("policy-fields@example.test");
    await client.get("/dashboard/policy");
    const threshold = await client.post("/dashboard/policy", { t_hate: "0.4", t_sexual: "1.5", action: "save" });
    expect(threshold.status).toBe(400);
    expect(tagOf(threshold.html, "name", "t_sexual")).toMatch(/aria-invalid="true" autofocus aria-describedby="form-error"/);
    expect(tagOf(threshold.html, "name", "t_hate")).not.toContain("aria-invalid");
    expect(threshold.html).toContain('id="form-error"');
    expect(threshold.html).toContain("<title>Error: Policy · Moderation</title>");
    expect(threshold.html).not.toContain("over RPC");
    const overlap = await client.post("/dashboard/policy", { block: "camper", allow: "camper", action: "save" });
    expect(tagOf(overlap.html, "id", "allow")).toContain('aria-invalid="true"');
    const badTerm = await client.post("/dashboard/policy", { block: "!!!", action: "save" });
    expect(tagOf(badTerm.html, "id", "block")).toContain('aria-invalid="true"');
    const blank = await client.post("/dashboard/policy", { text: " ", action: "try" });
    expect(tagOf(blank.html, "id", "try-text")).toContain('aria-invalid="true"');
  });

  it("finds a policy refusal's field in its detail, not in its message: a reworded message still marks the field, and no answer carries the detail", async () => {
    const cases: Array<[unknown, string]> = [
      [{ thresholds: { hate: 0.4, sexual: 1.5 } }, "t_sexual"],
      [{ block_list: [{ term: "!!!" }] }, "block"],
      [{ allow_list: ["fine", "x".repeat(101)] }, "allow"],
      [{ block_list: [{ term: "camper", category: "nope" }] }, "block"],
      [{ block_list: [{ term: "camper" }], allow_list: ["Camper"] }, "allow"],
      [{ allow_list: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, "allow"],
    ];
    for (const [draft, field] of cases) {
      const error = (await validatePolicyRulesCooperatively(draft).catch((e: unknown) => e)) as ApiError;
      expect(error, JSON.stringify(draft).slice(0, 80)).toBeInstanceOf(ApiError);
      expect(fieldOfPolicyError(new ApiError(error.code, "A message worded otherwise.", error.detail ? { detail: error.detail } : {}))).toBe(field);
      // Internal only: not an own enumerable field, so nothing spreading or serialising the error sends it.
      expect(Object.keys(error)).not.toContain("detail");
      expect(JSON.stringify({ ...error })).not.toContain("detail");
    }
    expect(fieldOfPolicyError(new ApiError("policy_invalid_threshold", "The threshold of hate must be a number."))).toBeUndefined();
  });

  it("marks the password a sign-up or a password change refuses, and links the rules' hint to it", async () => {
    const client = createFormClient(server.httpUrl);
    const weak = await client.signup("weak-password@example.test", "1234567890");
    expect(weak.status).toBe(400);
    expect(weak.html).toContain("<title>Error: Sign up · Moderation</title>");
    expect(tagOf(weak.html, "name", "password")).toContain('aria-invalid="true" autofocus aria-describedby="form-error password-hint"');
    expect(tagOf(weak.html, "name", "email")).not.toContain("aria-invalid");
    const fresh = await client.get("/dashboard/signup");
    expect(tagOf(fresh.html, "name", "password")).toContain('aria-describedby="password-hint"');
    expect(fresh.html).not.toContain("<title>Error:");

    await client.signup("change-password@example.test");
    await client.get("/dashboard/password");
    const differ = await client.post("/dashboard/password", { current: "a long enough password", password: "another long password", confirm: "another long passwort" });
    expect(differ.status).toBe(400);
    expect(tagOf(differ.html, "name", "confirm")).toContain('aria-invalid="true"');
    expect(tagOf(differ.html, "name", "password")).not.toContain("aria-invalid");
  });

  it("an expired log-in or sign-up form comes back with a fresh token and the typed email, never the password (still 403 forbidden)", async () => {
    const client = createFormClient(server.httpUrl);
    const tokenOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    for (const [path, title, email] of [["/dashboard/signup", "Sign up", "late-signup@example.test"], ["/dashboard/login", "Log in", "late-login@example.test"]] as const) {
      const form = await client.get(path);
      // The form's pre-session is gone (cookies cleared, another tab): its token no longer matches.
      client.jar.delete("mod_presession");
      const expired = await client.post(path, { email, password: "a typed secret password" });
      expect([expired.status, expired.headers.get("x-error-code")], path).toEqual([403, "forbidden"]);
      expect(expired.html).toContain(`<title>Error: ${title} · Moderation</title>`);
      expect(expired.html).toContain("This form had expired, so nothing was sent. Enter your password again and send it.");
      expect(tagOf(expired.html, "name", "email")).toContain(`value="${email}"`);
      expect(expired.html).not.toContain("a typed secret password");
      expect(tagOf(expired.html, "name", "password")).not.toContain("value=");
      // A fresh token, the one of the new pre-session: the form sent again is taken.
      const fresh = tokenOf(expired.html);
      expect(fresh).not.toBe(tokenOf(form.html));
      const again = await client.post(path, { _csrf: fresh, email, password: "a long enough password" });
      expect(again.status, path).toBe(path === "/dashboard/signup" ? 303 : 401);
      client.jar.delete("mod_session");
    }
    // Other forms keep the plain refusal.
    await client.signup("late-keys@example.test");
    const keys = await client.post("/dashboard/keys", { name: "x", _csrf: "stale" });
    expect([keys.status, keys.html.includes("The form has expired. Go back, reload the page and try again.")]).toEqual([403, true]);
  });

  it("says the plan's limit formatted on the keys page, and names each key in its Rotate and Revoke buttons", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("plan-format@example.test");
    const accountId = (await server.ctx.accounts.findAccountByEmail("plan-format@example.test"))!.id;
    await server.ctx.accounts.setPlan(accountId, "enterprise", 12_000);
    const key = await keyOf(await client.createKey("production"));
    const page = await client.get("/dashboard/keys");
    expect(page.html).toContain("12,000 requests per minute per account");
    expect(page.html).toContain(`aria-label="Revoke key production (${key.prefix}…)"`);
    expect(page.html).toContain(`aria-label="Rotate key production (${key.prefix}…)"`);
  });
});
