import { describe, expect, it } from "vitest";
import { callJson } from "../support/protocol-clients.js";
import { createKeyInBrowser, signUpInBrowser, useServerAndChromium, VIEWPORTS } from "./browser-support.js";

// Found by an accessibility and usability audit in Chromium: reloads re-posted forms without a word,
// focus fell to <body>, results and errors were off-screen or not tied to their inputs.
describe("dashboard reloads, focus and contrast in Chromium", () => {
  const chromium = useServerAndChromium();
  it("a reload of 'Key created' says the copied key is revoked; a reload of 'Key rotated' says it was rotated", { timeout: 90_000 }, async () => {
    const { page } = await signUpInBrowser(chromium, "reload", { acceptDialogs: true });
    const first = await createKeyInBrowser(page, "production");
    await page.click("[data-copy]");
    // Said in a live region, not only in the button's label.
    await page.locator(".copy-status[aria-live=polite]", { hasText: /^Copied$/ }).waitFor({ timeout: 5_000 });
    await page.reload();
    const second = (await page.locator("#new-key-secret").textContent())!.trim();
    expect(second).not.toBe(first);
    const notice = (await page.getByRole("alert").filter({ hasText: "sent again" }).textContent())!;
    expect(notice).toContain(`the key shown before (${first.slice(0, 12)}…) is revoked; use this one.`);
    expect(await callJson(chromium.server.httpUrl, { input: [{ type: "text", text: "hi" }] }, first)).toMatchObject({ ok: false, status: 401 });

    await page.goto("/dashboard/keys");
    await page.getByRole("button", { name: /^Rotate key production/ }).click();
    await page.locator("h1:has-text('Key rotated')").waitFor();
    await page.reload();
    expect(await page.locator("h1").textContent()).toBe("Key already rotated");
    expect(await page.locator(".notice").textContent()).toContain("Rotate the new key if you did not copy it.");
  });

  it("a reload after Save policy saves nothing again; Try draft's result is scrolled to", { timeout: 90_000 }, async () => {
    const { page, email } = await signUpInBrowser(chromium, "reload", { acceptDialogs: true });
    await page.goto("/dashboard/policy");
    await page.fill("#t_hate", "0.3");
    await page.click("#policy-save");
    await page.waitForURL("**/dashboard/policy?saved=1");
    await page.reload();
    await expect(page.locator(".notice.success").textContent()).resolves.toContain("Saved as version 1");
    const account = await chromium.server.ctx.accounts.findAccountByEmail(email);
    expect(await chromium.server.ctx.policies.history(account!.id)).toHaveLength(1);

    await page.fill("#try-text", "what an idiot");
    await page.click("#policy-try");
    await page.locator("#try-result").waitFor();
    expect(new URL(page.url()).hash).toBe("#try-result");
    expect(await page.locator("#try-result").getAttribute("role")).toBe("status");
    const box = (await page.locator("#try-result").boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeLessThan(VIEWPORTS.laptop.height);
  });

  it("keeps keyboard focus on Moderate while the playground works (it fell to <body>)", { timeout: 60_000 }, async () => {
    const { page } = await signUpInBrowser(chromium, "reload", { acceptDialogs: true });
    const secret = await createKeyInBrowser(page, "playground");
    await page.goto("/dashboard/playground");
    await page.fill("#pg-key", secret);
    await page.fill("#pg-text", "hello there");
    await page.focus("#pg-send");
    await page.keyboard.press("Enter");
    await page.locator("#pg-verdict").waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("pg-send");
    expect(await page.locator("#pg-send").getAttribute("aria-disabled")).toBeNull();
  });

  it("focuses the input a refused sign-up names, and says Error in the title", { timeout: 60_000 }, async () => {
    const context = await chromium.browser.newContext({ viewport: VIEWPORTS.laptop, baseURL: chromium.server.httpUrl });
    chromium.contexts.push(context);
    const page = await context.newPage();
    await page.goto("/dashboard/signup");
    await page.fill("input[name=email]", "weak-in-browser@example.test");
    await page.fill("input[name=password]", "1234567890");
    await page.click("button:has-text('Sign up')");
    await page.locator(".notice.error").waitFor();
    expect(await page.title()).toMatch(/^Error: Sign up/);
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe("password");
  });

  it("draws input borders at 3:1 or more against the card (WCAG 1.4.11), and lets the phone nav wrap", { timeout: 60_000 }, async () => {
    const { page } = await signUpInBrowser(chromium, "reload", { acceptDialogs: true, viewport: { width: 360, height: 740 } });
    const border = await page.locator("input[name=name]").evaluate((input) => getComputedStyle(input).borderTopColor);
    expect(contrastWithWhite(border)).toBeGreaterThanOrEqual(3);
    // Every nav link within the screen: a scrolling strip cut off "Playground" and "Policy".
    const clipped = await page.locator("nav.nav a").evaluateAll((links) => links.filter((a) => a.getBoundingClientRect().right > window.innerWidth).map((a) => a.textContent));
    expect(clipped).toEqual([]);
  });
});

/** WCAG contrast of a computed `rgb(r, g, b)` colour against white. */
function contrastWithWhite(rgb: string): number {
  const [r, g, b] = rgb.match(/\d+/g)!.slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}
