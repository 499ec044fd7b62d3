import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.resolve("test-artifacts/dashboard");

export const VIEWPORTS = {
  laptop: { width: 1366, height: 820 },
  phone: { width: 390, height: 844 },
} as const;

/** Real Chromium, never a downloaded one. A missing binary fails the test loudly rather than skipping it. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" (or set CHROMIUM_PATH). Browser tests do not skip.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** A page that needs sideways scrolling on a phone is a layout bug. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * A test server and Chromium for one describe block, closed after it with every context opened
 * into `contexts`. Every account signs up from 127.0.0.1, so the per-IP sign-up limit is lifted
 * (abuse-limits.test.ts covers it).
 */
export function useServerAndChromium(): { readonly server: TestServer; readonly browser: Browser; contexts: BrowserContext[] } {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUPS_PER_IP: "1000" } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
  });
  return { get server() { return server!; }, get browser() { return browser!; }, contexts };
}

let signUps = 0;

/**
 * A freshly signed-up account's page in a new context of `chromium` (sign-up works without
 * JavaScript too); `acceptDialogs` answers every window.confirm yes. The email starts with `prefix`.
 */
export async function signUpInBrowser(
  chromium: ReturnType<typeof useServerAndChromium>,
  prefix: string,
  options: { viewport?: { width: number; height: number }; javaScriptEnabled?: boolean; acceptDialogs?: boolean } = {},
): Promise<{ page: Page; email: string; accountId: string }> {
  const context = await chromium.browser.newContext({
    viewport: options.viewport ?? VIEWPORTS.laptop,
    baseURL: chromium.server.httpUrl,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  chromium.contexts.push(context);
  const page = await context.newPage();
  if (options.acceptDialogs) page.on("dialog", (dialog) => void dialog.accept());
  const email = `${prefix}-${++signUps}@example.test`;
  await page.goto("/dashboard/signup");
  await page.fill("input[name=email]", email);
  await page.fill("input[name=password]", "a browser-tested password");
  await page.click("button:has-text('Sign up')");
  await page.waitForURL("**/dashboard/keys?welcome=1");
  return { page, email, accountId: (await chromium.server.ctx.accounts.findAccountByEmail(email))!.id };
}

/** Creates a key named `name` on the keys page and returns its secret, shown once. */
export async function createKeyInBrowser(page: Page, name: string): Promise<string> {
  await page.goto("/dashboard/keys");
  await page.fill("input[name=name]", name);
  await page.click("button:has-text('Create key')");
  return (await page.locator("#new-key-secret").textContent())!.trim();
}
