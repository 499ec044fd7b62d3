import { describe, expect, it } from "vitest";
import { createKeyInBrowser, horizontalOverflow, screenshot, signUpInBrowser, useServerAndChromium, VIEWPORTS } from "./browser-support.js";

// Found by an accessibility and usability audit: without JavaScript, Revoke and Rotate acted on one
// click (window.confirm was the only question); the usage chart's labels were about 5 px on a phone.
describe("Revoke and Rotate ask first, and the usage chart reads on a phone, in Chromium", () => {
  const chromium = useServerAndChromium();
  const liveKeys = async (accountId: string) => (await chromium.server.ctx.accounts.listKeys(accountId)).filter((k) => k.revokedAt === null);

  it("without JavaScript, revoking takes two steps: the button asks (naming the key), Cancel keeps it, the answer revokes it", { timeout: 90_000 }, async () => {
    const { page, accountId } = await signUpInBrowser(chromium, "confirm", { javaScriptEnabled: false });
    await createKeyInBrowser(page, "production");
    const [key] = await liveKeys(accountId);

    await page.goto("/dashboard/keys");
    await page.getByRole("button", { name: /^Revoke key production/ }).click();
    await page.waitForURL((url) => url.pathname === `/dashboard/keys/${key!.id}/revoke`);
    // The token stays out of the URL (its field is disabled in the GET form).
    expect(page.url()).not.toContain("_csrf");
    expect(await page.locator("h1").textContent()).toBe(`Revoke “production” (${key!.prefix}…)?`);
    expect(await liveKeys(accountId)).toHaveLength(1);
    await screenshot(page, "laptop-nojs-revoke-confirm");

    await page.click("a:has-text('Cancel')");
    await page.waitForURL((url) => url.pathname === "/dashboard/keys" && url.search === "");
    expect(await liveKeys(accountId)).toHaveLength(1);

    await page.getByRole("button", { name: /^Revoke key production/ }).click();
    await page.waitForURL((url) => url.pathname === `/dashboard/keys/${key!.id}/revoke`);
    await page.click("button:has-text('Revoke key')");
    await page.waitForURL("**/dashboard/keys?revoked=1");
    expect(await liveKeys(accountId)).toHaveLength(0);
    expect(await page.locator("#revoked-keys tbody tr").count()).toBe(1);

    // Rotate asks the same way, and its answer shows the new secret.
    await createKeyInBrowser(page, "ci");
    await page.goto("/dashboard/keys");
    await page.getByRole("button", { name: /^Rotate key ci/ }).click();
    await page.locator("h1", { hasText: /^Rotate “ci” \(.+…\)\?$/ }).waitFor();
    expect(await liveKeys(accountId)).toHaveLength(1);
    await page.click("button:has-text('Rotate key')");
    await page.locator("h1:has-text('Key rotated')").waitFor();
  });

  it("with JavaScript, the dialog is the one question: yes posts the action at once, no leaves the key", { timeout: 90_000 }, async () => {
    const { page, accountId } = await signUpInBrowser(chromium, "confirm");
    await createKeyInBrowser(page, "production");
    const [key] = await liveKeys(accountId);
    await page.goto("/dashboard/keys");
    const asked: string[] = [];
    let answer = false;
    page.on("dialog", (dialog) => {
      asked.push(dialog.message());
      void (answer ? dialog.accept() : dialog.dismiss());
    });
    const requests: string[] = [];
    page.on("request", (request) => {
      if (request.isNavigationRequest()) requests.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await page.getByRole("button", { name: /^Revoke key production/ }).click();
    await page.waitForTimeout(300);
    expect(asked).toEqual([`Revoke “production” (${key!.prefix}…)? Calls using it will be refused.`]);
    expect(requests).toEqual([]);
    expect(await liveKeys(accountId)).toHaveLength(1);

    answer = true;
    await page.getByRole("button", { name: /^Revoke key production/ }).click();
    await page.waitForURL("**/dashboard/keys?revoked=1");
    expect(requests).toEqual([`POST /dashboard/keys/${key!.id}/revoke`, "GET /dashboard/keys"]);
    expect(await liveKeys(accountId)).toHaveLength(0);
  });

  it("draws the usage chart's labels at 11 px or more on a 360 px phone, none overlapping, and opens the table there", { timeout: 90_000 }, async () => {
    const { page } = await signUpInBrowser(chromium, "confirm", { viewport: { width: 360, height: 740 } });
    /** Each visible label's rendered font size (an SVG's scale included) and box. */
    const ticks = () => page.locator(".chart .tick").evaluateAll((nodes) => nodes.filter((node) => getComputedStyle(node).display !== "none").map((node) => {
      const scale = node instanceof SVGGraphicsElement ? node.getScreenCTM()!.a : 1;
      const box = node.getBoundingClientRect();
      return { text: node.textContent, px: parseFloat(getComputedStyle(node).fontSize) * scale, left: box.left, right: box.right, top: box.top };
    }));
    for (const path of ["/dashboard/usage?granularity=hour", "/dashboard/usage", "/dashboard"]) {
      await page.goto(path);
      const shown = await ticks();
      // Three date or hour labels under the bars, and the y axis's maximum and 0.
      expect(shown.length, path).toBe(5);
      for (const tick of shown) expect(tick.px, `${path} "${tick.text}"`).toBeGreaterThanOrEqual(11);
      const xTicks = shown.filter((t) => t.top === Math.max(...shown.map((s) => s.top))).sort((a, b) => a.left - b.left);
      for (let i = 1; i < xTicks.length; i++) expect(xTicks[i]!.left, `${path} labels overlap`).toBeGreaterThan(xTicks[i - 1]!.right);
      expect(await horizontalOverflow(page), path).toBeLessThanOrEqual(0);
    }
    await page.goto("/dashboard/usage?granularity=hour");
    expect(await page.locator("details[data-open-narrow]").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await screenshot(page, "w360-usage-hour");
    await page.setViewportSize({ width: 320, height: 640 });
    await page.goto("/dashboard/usage");
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "w320-usage-day");

    // A wide screen: all six labels, the table folded.
    await page.setViewportSize(VIEWPORTS.laptop);
    await page.goto("/dashboard/usage");
    expect((await ticks()).filter((t) => /^\d\d-\d\d$/.test(t.text ?? "")).length).toBe(6);
    expect(await page.locator("details[data-open-narrow]").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await screenshot(page, "laptop-usage-day");
  });
});
