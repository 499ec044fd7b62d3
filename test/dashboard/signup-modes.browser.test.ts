import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { launchChromium, screenshot } from "./browser-support.js";

const PASSWORD = "a sign-up mode password";

/** SIGNUP=closed and SIGNUP=invite, as a visitor sees them in Chromium. */
describe("sign-up modes in Chromium", () => {
  let browser: Browser;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const server of servers) await server.close();
  });

  const pageFor = async (server: TestServer): Promise<Page> => {
    const context = await browser.newContext({ baseURL: server.httpUrl });
    return context.newPage();
  };

  const signUp = async (page: Page, email: string, invite?: string) => {
    await page.goto("/dashboard/signup");
    await page.fill("input[name=email]", email);
    await page.fill("input[name=password]", PASSWORD);
    if (invite !== undefined) await page.fill("input[name=invite]", invite);
    await page.click("button:has-text('Sign up')");
    await page.waitForLoadState();
  };

  it("closed: the page says so, has no form, and a posted sign-up is refused with 403", async () => {
    const server = await startTestServer({ env: { SIGNUP: "closed" } });
    servers.push(server);
    const page = await pageFor(server);
    const response = await page.goto("/dashboard/signup");
    expect(response!.status()).toBe(403);
    await expect(page.locator("h1").textContent()).resolves.toBe("Sign-up is closed");
    expect(await page.locator("input[name=password]").count()).toBe(0);
    await screenshot(page, "signup-closed");

    // The log-in page does not offer a sign-up that would be refused.
    await page.goto("/dashboard/login");
    expect(await page.locator("a[href='/dashboard/signup']").count()).toBe(0);
    await expect(page.locator("main, body").first().textContent()).resolves.toContain("created by the operator");

    // A form posted anyway (with a valid CSRF token from the log-in page) creates nothing.
    const csrf = await page.locator("input[name=_csrf]").getAttribute("value");
    const posted = await page.request.post("/dashboard/signup", {
      form: { _csrf: csrf!, email: "closed@example.test", password: PASSWORD },
      headers: { origin: server.httpUrl },
    });
    expect(posted.status()).toBe(403);
    expect(await server.ctx.accounts.findAccountByEmail("closed@example.test")).toBeUndefined();
  }, 120_000);

  it("invite: a code from modctl's store signs up once; a used or made-up code is refused", async () => {
    const server = await startTestServer({ env: { SIGNUP: "invite" } });
    servers.push(server);
    const { code } = await server.ctx.dashboard.invites.create(86_400_000);

    const stranger = await pageFor(server);
    await stranger.goto("/dashboard/login");
    await expect(stranger.locator("a[href='/dashboard/signup']").locator("xpath=..").textContent()).resolves.toContain("Have an invite code?");
    await signUp(stranger, "no-code@example.test", "inv_" + "A".repeat(24));
    await expect(stranger.locator(".notice.error").textContent()).resolves.toContain("invite code is unknown, used or expired");
    expect(await server.ctx.accounts.findAccountByEmail("no-code@example.test")).toBeUndefined();

    const invited = await pageFor(server);
    await signUp(invited, "invited@example.test", code);
    expect(new URL(invited.url()).pathname).toBe("/dashboard/keys");
    await screenshot(invited, "signup-invited");
    const account = await server.ctx.accounts.findAccountByEmail("invited@example.test");
    expect(account).toBeDefined();
    expect(await server.ctx.dashboard.invites.list()).toEqual([expect.objectContaining({ usedBy: account!.id, usedAt: expect.any(Number) })]);

    const second = await pageFor(server);
    await signUp(second, "second@example.test", code);
    await expect(second.locator(".notice.error").textContent()).resolves.toContain("invite code is unknown, used or expired");
    expect(await server.ctx.accounts.findAccountByEmail("second@example.test")).toBeUndefined();

    // modctl account disable: the open session ends, and logging in again is refused.
    await server.ctx.accounts.setDisabled(account!.id, true);
    await invited.goto("/dashboard");
    expect(new URL(invited.url()).pathname).toBe("/dashboard/login");
    await invited.fill("input[name=email]", "invited@example.test");
    await invited.fill("input[name=password]", PASSWORD);
    await invited.click("button:has-text('Log in')");
    await invited.waitForLoadState();
    await expect(invited.locator(".notice.error").textContent()).resolves.toContain("This account is disabled");
  }, 120_000);
});
