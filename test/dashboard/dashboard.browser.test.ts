import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { callJson } from "../support/protocol-clients.js";
import { horizontalOverflow, screenshot, useServerAndChromium, VIEWPORTS } from "./browser-support.js";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const EMAIL = "browser@example.test";
const PASSWORD = "a browser-tested password";

describe("dashboard in Chromium", () => {
  const chromium = useServerAndChromium();

  const newPage = async (viewport: keyof typeof VIEWPORTS): Promise<Page> => {
    const context = await chromium.browser.newContext({ viewport: VIEWPORTS[viewport], baseURL: chromium.server.httpUrl });
    chromium.contexts.push(context);
    const page = await context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    return page;
  };
  const totalRequests = async (page: Page) => Number((await page.locator("#total-requests").textContent())!.replace(/,/g, ""));

  // 15–25 s of browser work alone; past the default 30 s beside other test files on a loaded 2-core machine.
  it("sign up → create key → the key works → usage goes up → revoke → the key is refused", { timeout: 120_000 }, async () => {
    const page = await newPage("laptop");
    await page.goto("/dashboard");
    expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    await screenshot(page, "laptop-login");

    await page.click("text=Create an account");
    await page.fill("input[name=email]", EMAIL);
    await page.fill("input[name=password]", PASSWORD);
    await screenshot(page, "laptop-signup");
    await page.click("button:has-text('Sign up')");
    await page.waitForURL("**/dashboard/keys?welcome=1");
    await expect(page.locator(".notice.success").textContent()).resolves.toContain("Welcome");

    await page.goto("/dashboard");
    expect(await page.locator("#plan-name").textContent()).toBe("free");
    expect(await page.locator("#plan-limit").textContent()).toBe("10 requests per minute");
    const before = await totalRequests(page);
    expect(before).toBe(0);

    await page.goto("/dashboard/keys");
    await page.fill("input[name=name]", "production");
    await page.click("button:has-text('Create key')");
    const secret = (await page.locator("#new-key-secret").textContent())!.trim();
    expect(secret).toMatch(/^mod_[A-Za-z0-9]{8}_/);
    await page.click("[data-copy]");
    await page.locator("[data-copy]:has-text('Copied')").waitFor();
    await screenshot(page, "laptop-key-created");

    // The shown key works against the public API.
    const first = await callJson(chromium.server.httpUrl, { input: [{ type: "text", text: "is this fine?" }] }, secret);
    expect(first.ok).toBe(true);
    // The overview shows the account id its answers are signed for (docs/signing.md, Scope).
    await page.goto("/dashboard");
    expect(await page.locator("#account-id").textContent()).toBe(first.headers["moderation-account"]);
    expect(first.headers["moderation-account"]).toMatch(/^acct_/);

    // And from the playground, with a text and an uploaded image in one request.
    await page.goto("/dashboard/playground");
    await page.fill("#pg-key", secret);
    await page.fill("#pg-text", "you are an idiot and I will hurt you");
    await page.setInputFiles("#pg-image", { name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.click("#pg-send");
    await page.locator("#pg-verdict").waitFor();
    expect(await page.locator(".verdict").count()).toBe(2);
    await expect(page.locator(".verdict").first().textContent()).resolves.toContain("Item 0 (text)");
    await screenshot(page, "laptop-playground");

    await page.goto("/dashboard/usage?granularity=hour");
    expect(await totalRequests(page)).toBe(before + 2);
    expect(await page.locator("svg rect.bar-requests").count()).toBe(48);
    await screenshot(page, "laptop-usage");
    await page.goto("/dashboard");
    expect(await totalRequests(page)).toBe(before + 2);
    await screenshot(page, "laptop-overview");

    await page.goto("/dashboard/keys");
    const row = page.locator("#active-keys tbody tr", { hasText: "production" });
    await expect(row.locator("td[data-label='Last used']").textContent()).resolves.not.toBe("never");
    await screenshot(page, "laptop-keys");
    await row.locator("button:has-text('Revoke')").click();
    await page.waitForURL("**/dashboard/keys?revoked=1");
    expect(await page.locator("#active-keys").count()).toBe(0);
    expect(await page.locator("#revoked-keys tbody tr").count()).toBe(1);

    const after = await callJson(chromium.server.httpUrl, { input: [{ type: "text", text: "still there?" }] }, secret);
    expect(after).toMatchObject({ ok: false, status: 401, code: "invalid_api_key" });

    // The playground shows the API's error as the API states it.
    await page.goto("/dashboard/playground");
    await page.fill("#pg-key", secret);
    await page.fill("#pg-text", "hello");
    await page.click("#pg-send");
    await expect(page.locator("#pg-error").textContent()).resolves.toContain("invalid_api_key");
    // Announced when it appears (its live region was in a card hidden until the first send).
    expect(await page.getByRole("alert").filter({ hasText: "invalid_api_key" }).count()).toBe(1);

    await page.click("button:has-text('Log out')");
    await page.waitForURL("**/dashboard/login?loggedOut=1");
  });

  it("without JavaScript the playground cannot send the key anywhere (it went into the URL)", { timeout: 60_000 }, async () => {
    const context = await chromium.browser.newContext({ viewport: VIEWPORTS.laptop, baseURL: chromium.server.httpUrl, javaScriptEnabled: false });
    chromium.contexts.push(context);
    const page = await context.newPage();
    await page.goto("/dashboard/login");
    await page.fill("input[name=email]", EMAIL);
    await page.fill("input[name=password]", PASSWORD);
    await page.click("button:has-text('Log in')");
    await page.waitForURL((url) => url.pathname === "/dashboard");
    await page.goto("/dashboard/playground");
    expect(await page.locator("#pg-send").isDisabled()).toBe(true);
    await page.fill("#pg-key", "mod_SECRETKEYVALUE123");
    await page.fill("#pg-text", "hello");
    await page.press("#pg-key", "Enter");
    await page.waitForTimeout(300);
    expect(page.url()).not.toContain("SECRET");
    expect(new URL(page.url()).pathname).toBe("/dashboard/playground");
  });

  it("fits a phone screen on every page", async () => {
    const page = await newPage("phone");
    await page.goto("/dashboard/signup");
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "phone-signup");
    await page.goto("/dashboard/login");
    await screenshot(page, "phone-login");
    await page.fill("input[name=email]", EMAIL);
    await page.fill("input[name=password]", PASSWORD);
    await page.click("button:has-text('Log in')");
    await page.waitForURL((url) => url.pathname === "/dashboard");
    for (const [name, path] of [["overview", "/dashboard"], ["keys", "/dashboard/keys"], ["usage", "/dashboard/usage"], ["playground", "/dashboard/playground"]] as const) {
      await page.goto(path);
      expect(await horizontalOverflow(page), `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      await screenshot(page, `phone-${name}`);
    }
    await page.goto("/dashboard/keys");
    // The longest name a key may have, one unbroken word: it pushed the actions off screen.
    await page.fill("input[name=name]", "W".repeat(100));
    await page.click("button:has-text('Create key')");
    // The click only starts the form's navigation: measure the new page once its stylesheet has
    // applied, not the bare HTML of a page still loading (that race failed CI once with 56 px).
    await page.locator("#new-key-secret").waitFor();
    await page.waitForLoadState("load");
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "phone-key-created");
    await page.goto("/dashboard/keys");
    expect(await horizontalOverflow(page), "keys listing a 100-letter name").toBeLessThanOrEqual(0);
  });
});
