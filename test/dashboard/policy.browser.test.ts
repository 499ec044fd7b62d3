import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { readModelHeader } from "../../src/classifiers/model/model-file.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { launchChromium, screenshot, VIEWPORTS } from "./browser-support.js";

describe("policy page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUPS_PER_IP: "1000" } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("try a draft (scores and flags, nothing saved) → a refusal keeps the form → save → the API answers under it → the change is listed", { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.laptop, baseURL: server.httpUrl });
    const page = await context.newPage();
    await page.goto("/dashboard/signup");
    await page.fill("input[name=email]", "policy@example.test");
    await page.fill("input[name=password]", "a browser-tested password");
    await page.click("button:has-text('Sign up')");
    await page.waitForURL("**/dashboard/keys?welcome=1");
    await page.fill("input[name=name]", "game");
    await page.click("button:has-text('Create key')");
    const key = (await page.locator("#new-key-secret").textContent())!.trim();

    await page.click("nav >> text=Policy");
    expect(await page.locator("#policy-version").textContent()).toBe("none");
    // A blank input keeps the model's own threshold, and the page shows which.
    const sexualDefault = readModelHeader().thresholds.sexual!;
    expect(await page.getAttribute("#t_sexual", "placeholder")).toBe(`default ${sexualDefault.toFixed(2)}`);
    // Every field has a name a screen reader says (the three lists had none).
    for (const name of ["Block list", "Allow list", "Try it"]) expect(await page.getByRole("textbox", { name }).count(), name).toBe(1);
    await page.fill("#t_hate", "off");
    // "sh|t" is a term (it was the term "sh" in category "t"); "| harassment" names a category.
    await page.fill("#block", "camper | harassment\nez clap\nsh|t\nki||");
    await page.fill("#allow", "noob");
    await page.fill("#try-text", "what a c4mper");
    await page.click("#policy-try");
    expect(await page.locator("#try-result tr[data-category=harassment] .flag").textContent()).toBe("yes");
    expect(await page.locator("#policy-version").textContent()).toBe("none");
    expect(await page.inputValue("#block")).toBe("camper | harassment\nez clap\nsh|t\nki||");
    await screenshot(page, "laptop-policy-try");

    await page.fill("#t_sexual", "1.5");
    await page.click("#policy-save");
    await expect(page.locator(".notice.error").textContent()).resolves.toContain("policy_invalid_threshold");
    expect(await page.inputValue("#t_sexual")).toBe("1.5");
    await page.fill("#t_sexual", "0.2");
    // Enter in a field saves, as the form's main button does (it ran "Try draft", the first
    // button in the form, and spent a call).
    await page.press("#t_sexual", "Enter");
    await expect(page.locator(".notice.success").textContent()).resolves.toContain("version 1");
    expect(await page.locator("#policy-changes tbody tr").count()).toBe(1);
    expect(await page.locator("#policy-changes").textContent()).toContain("user:policy@example.test");

    const response = await fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text: "what a c4mper" }] }),
    });
    const answer = (await response.json()) as { policy?: { version: number }; results: { categories: Record<string, { flagged: boolean }> }[] };
    expect(answer.policy?.version).toBe(1);
    expect(answer.results[0]!.categories.harassment!.flagged).toBe(true);
    await page.goto("/dashboard/policy");
    expect(await page.inputValue("#t_hate")).toBe("off");
    expect(await page.inputValue("#t_sexual")).toBe("0.2");
    // Saved whole, and shown so that saving the page again keeps it whole.
    expect(await page.inputValue("#block")).toBe("camper | harassment\nez clap\nsh|t | custom\nki|| | custom");
    const account = await server.ctx.accounts.findAccountByEmail("policy@example.test");
    expect((await server.ctx.policies.current({ accountId: account!.id }))!.blockList.map((b) => `${b.term} ${b.category}`)).toEqual(["camper harassment", "ez clap custom", "sh|t custom", "ki|| custom"]);
    await context.close();
  });
});
