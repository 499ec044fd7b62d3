import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../dashboard/browser-support.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// CORS_ORIGINS, from a real page of another origin in Chromium: the browser runs the preflight
// and enforces what the answers allow, so what passes here passes for a web app.

let pages: http.Server;
let pageOrigin: string;
let otherOrigin: string;
let server: TestServer;
let browser: Browser;
let key: string;

beforeAll(async () => {
  pages = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>app</title>"));
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  const port = (pages.address() as AddressInfo).port;
  pageOrigin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;
  server = await startTestServer({ env: { CORS_ORIGINS: pageOrigin } });
  key = (await server.createAccount("pro")).key;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

async function pageAt(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(origin);
  return page;
}

describe("cross-origin calls from a browser page (CORS_ORIGINS)", () => {
  it("an allowed origin calls the JSON route with its key and reads the signature, request id and rate-limit fields", async () => {
    const page = await pageAt(pageOrigin);
    const seen = await page.evaluate(async ({ api, key }) => {
      const response = await fetch(`${api}/v1/moderate`, {
        method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text: "hello" }] }),
      });
      const h = (name: string) => response.headers.get(name);
      return { status: response.status, signature: h("signature"), input: h("signature-input"), digest: h("content-digest"), requestId: h("x-request-id"), remaining: h("x-ratelimit-remaining"), body: await response.json() };
    }, { api: server.httpUrl, key });
    expect(seen.status).toBe(200);
    expect(seen.signature).toMatch(/^sig1=:/);
    expect(seen.input).toMatch(/^sig1=/);
    expect(seen.digest).toMatch(/^sha-256=:/);
    expect(seen.requestId).toBeTruthy();
    expect(Number(seen.remaining)).toBeGreaterThan(0);
    expect(seen.body.results).toHaveLength(1);
    await page.close();
  });

  it("an allowed origin calls over gRPC-Web (here without a key: UNAUTHENTICATED in the trailer frame)", async () => {
    const page = await pageAt(pageOrigin);
    const seen = await page.evaluate(async (api) => {
      const response = await fetch(`${api}/moderation.v1.ModerationService/Moderate`, {
        method: "POST", headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" }, body: new Uint8Array([0, 0, 0, 0, 0]),
      });
      return { status: response.status, body: new TextDecoder().decode(await response.arrayBuffer()) };
    }, server.httpUrl);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatch(/grpc-status: ?16/);
    expect(seen.body).toMatch(/x-error-code: ?missing_api_key/);
    await page.close();
  });

  it("another origin is refused by the browser: no CORS headers for it", async () => {
    const page = await pageAt(otherOrigin);
    const outcome = await page.evaluate(async ({ api, key }) => {
      try {
        await fetch(`${api}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: "{}" });
        return "answered";
      } catch (error) {
        return String(error);
      }
    }, { api: server.httpUrl, key });
    expect(outcome).toMatch(/TypeError/);
    await page.close();
  });

  it("the preflight itself: 204 with the methods and headers, allowing only the listed origin", async () => {
    const preflight = (origin: string) => fetch(`${server.httpUrl}/v1/moderate`, {
      method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key" },
    });
    const allowed = await preflight(pageOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(pageOrigin);
    expect(allowed.headers.get("access-control-allow-methods")).toBe("POST, GET");
    expect(allowed.headers.get("access-control-allow-headers")).toContain("x-api-key");
    expect(allowed.headers.get("access-control-max-age")).toBe("7200");
    expect(allowed.headers.get("vary")).toMatch(/Origin/);
    // What the official OpenAI SDK sends from a browser (dangerouslyAllowBrowser) on /v1/moderations.
    const sdk = await fetch(`${server.httpUrl}/v1/moderations`, {
      method: "OPTIONS",
      headers: { origin: pageOrigin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, x-stainless-arch, x-stainless-lang, x-stainless-os, x-stainless-package-version, x-stainless-retry-count, x-stainless-runtime, x-stainless-runtime-version, x-stainless-timeout" },
    });
    const allowedHeaders = (sdk.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);
    for (const header of ["x-stainless-lang", "x-stainless-retry-count", "x-stainless-timeout", "authorization"]) expect(allowedHeaders, header).toContain(header);
    // Another origin's preflight is answered without Access-Control-Allow-Origin: the browser stops there.
    const other = await preflight(otherOrigin);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
