import type { ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, spawnNode, stop } from "../../bench/support/spawn-service.js";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { envelope, postH1, postH2, type RawRpcAnswer } from "../support/raw-rpc.js";

// Issue 20, item 3: compression bombs. A 60 MB run of zeros is ~106 bytes of brotli or ~61 KB of
// gzip; before, the server inflated and decoded it twice before checking the key (20 bombs:
// 0.70 -> 1.77 GB RSS). Now the key is checked first, and inflating stops at the limit. The
// server runs as a child process, as in production, so its RSS is what is measured.

const MB = 1024 * 1024;
const PATH = "/moderation.v1.ModerationService/Moderate";
const BOMBS = 20;
/** RSS growth allowed over 20 bombs without a live key: nothing is inflated, so only garbage from reading ≤ 61 KB bodies. */
const UNAUTHENTICATED_GROWTH_BOUND = 96 * MB;
/**
 * With a live key a 60 MB message is within the size limit (ten 5 MiB images as base64 are
 * ~70 MB), but not the ratio cap (decode-check.ts): inflating stops at 100 times the compressed
 * size (at least 1 MiB), about 6 MB for the gzip bombs.
 */
const AUTHENTICATED_GROWTH_BOUND = 96 * MB;

const zeros = Buffer.alloc(60 * MB);
const spaces = Buffer.alloc(60 * MB, 0x20);
const gzip60 = gzipSync(zeros, { level: 9 });
const brotli60 = brotliCompressSync(zeros);
/** gRPC's deflate (zlib), as grpc-core and grpc-js send it: ~61 KB, like gzip. */
const deflate60 = deflateSync(zeros, { level: 9 });
const gzipSpaces60 = gzipSync(spaces, { level: 9 });
/** Past the limit once inflated: refused as payload_too_large without inflating further. */
const brotliOver = brotliCompressSync(Buffer.alloc(MAX_REQUEST_BYTES + 10 * MB));

type Bomb = { name: string; send: (key: string | undefined) => Promise<RawRpcAnswer> };

let child: ChildProcess;
let httpUrl: string;
let grpcUrl: string;
let key: string;
let dataDir: string;

const withKey = (headers: Record<string, string>, apiKey: string | undefined) => (apiKey === undefined ? headers : { ...headers, "x-api-key": apiKey });
const grpcHeaders = (encoding: string) => ({ "content-type": "application/grpc", te: "trailers", "grpc-encoding": encoding });

const bombs: Bomb[] = [
  { name: "gRPC, brotli message (h2c)", send: (k) => postH2(grpcUrl, PATH, withKey(grpcHeaders("br"), k), envelope(brotli60, true)) },
  { name: "gRPC, gzip message (h2c)", send: (k) => postH2(grpcUrl, PATH, withKey(grpcHeaders("gzip"), k), envelope(gzip60, true)) },
  { name: "gRPC, deflate message (h2c)", send: (k) => postH2(grpcUrl, PATH, withKey(grpcHeaders("deflate"), k), envelope(deflate60, true)) },
  {
    name: "gRPC-Web, brotli message (HTTP/1.1)",
    send: (k) => postH1(httpUrl, PATH, withKey({ "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "grpc-encoding": "br" }, k), envelope(brotli60, true)),
  },
  { name: "Connect proto, gzip body (HTTP/1.1)", send: (k) => postH1(httpUrl, PATH, withKey({ "content-type": "application/proto", "content-encoding": "gzip" }, k), gzip60) },
  { name: "Connect proto, deflate body (HTTP/1.1)", send: (k) => postH1(httpUrl, PATH, withKey({ "content-type": "application/proto", "content-encoding": "deflate" }, k), deflate60) },
  { name: "Connect proto, brotli body (HTTP/1.1)", send: (k) => postH1(httpUrl, PATH, withKey({ "content-type": "application/proto", "content-encoding": "br" }, k), brotli60) },
  { name: "Connect JSON, gzip body (HTTP/1.1)", send: (k) => postH1(httpUrl, PATH, withKey({ "content-type": "application/json", "content-encoding": "gzip" }, k), gzipSpaces60) },
  { name: "Connect proto, brotli body (h2c)", send: (k) => postH2(grpcUrl, PATH, withKey({ "content-type": "application/proto", "content-encoding": "br" }, k), brotli60) },
  { name: "POST /v1/moderate, gzip body", send: (k) => postH1(httpUrl, "/v1/moderate", withKey({ "content-type": "application/json", "content-encoding": "gzip" }, k), gzipSpaces60) },
];

/** The stable code of an answer: x-error-code, on every protocol. */
const codeOf = (answer: RawRpcAnswer) => answer.metadata["x-error-code"];
/** The JSON route takes no Content-Encoding: it refuses a compressed body (415) before the key, and inflates nothing. */
const jsonRoute = (bomb: Bomb) => bomb.name.startsWith("POST /v1/moderate");
function expectJsonRouteRefusal(bomb: Bomb, answer: RawRpcAnswer): void {
  expect(answer.httpStatus, bomb.name).toBe(415);
  expect(JSON.parse(answer.body.toString()).error.code, bomb.name).toBe("unsupported_media_type");
  expect(codeOf(answer), bomb.name).toBe("unsupported_media_type");
  expect(answer.metadata["signature"], bomb.name).toBeDefined();
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-bombs-"));
  const db = await openDatabase({ databaseUrl: undefined, dataDir });
  const accounts = createAccountStore(db);
  const account = await accounts.createAccount({ email: `bombs-${Date.now()}@example.test`, plan: "enterprise", rpm: 1_000_000 });
  key = (await accounts.createKey(account.id, "bombs")).key;
  await db.close();
  const [port, grpcPort] = [await freePort(), await freePort()];
  httpUrl = `http://127.0.0.1:${port}`;
  grpcUrl = `http://127.0.0.1:${grpcPort}`;
  const env = { PORT: String(port), GRPC_PORT: String(grpcPort), HOST: "127.0.0.1", DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", IMAGE_WORKERS: "1", WORKER_THREADS: "1" };
  child = await spawnNode("src/main.ts", env, `${httpUrl}/healthz`);
}, 60_000);

afterAll(async () => {
  if (child) await stop(child);
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

/** The child's resident set, from /proc (Linux). */
async function rssBytes(): Promise<number> {
  const status = await fs.readFile(`/proc/${child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Sends `count` bombs one after another (cycling through the kinds), sampling the child's RSS meanwhile. */
async function barrage(count: number, apiKey: string | undefined, expect: (bomb: Bomb, answer: RawRpcAnswer) => void) {
  // Let the start-up settle, then take the baseline.
  await new Promise((r) => setTimeout(r, 300));
  const before = await rssBytes();
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssBytes());
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const latencies = new Map<string, number[]>();
  for (let i = 0; i < count; i++) {
    const bomb = bombs[i % bombs.length]!;
    const started = performance.now();
    const answer = await bomb.send(apiKey);
    latencies.set(bomb.name, [...(latencies.get(bomb.name) ?? []), performance.now() - started]);
    expect(bomb, answer);
  }
  sampling = false;
  await sampler;
  const after = await rssBytes();
  return { before, peak, after, latencies };
}

function report(title: string, figures: Awaited<ReturnType<typeof barrage>>): void {
  const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
  const lines = [...figures.latencies].map(([name, ms]) => `  ${name.padEnd(40)} ${ms.map((m) => m.toFixed(0)).join(", ")} ms`);
  console.log(
    `${title}: RSS before ${mb(figures.before)}, peak ${mb(figures.peak)} (+${mb(figures.peak - figures.before)}), after ${mb(figures.after)}\n${lines.join("\n")}`,
  );
}

describe("compression bombs against a server process", () => {
  it(`without a key: ${BOMBS} bombs on every protocol are refused unauthenticated, nothing inflated`, async () => {
    const figures = await barrage(BOMBS, undefined, (bomb, answer) => {
      if (jsonRoute(bomb)) return expectJsonRouteRefusal(bomb, answer);
      expect(codeOf(answer), bomb.name).toBe("missing_api_key");
      expect(answer.grpcStatus ?? answer.httpStatus, bomb.name).toBe(answer.grpcStatus === undefined ? 401 : 16);
    });
    report("no key", figures);
    expect(figures.peak - figures.before).toBeLessThan(UNAUTHENTICATED_GROWTH_BOUND);
  }, 120_000);

  it("with a key that is not live: the same, invalid_api_key", async () => {
    const figures = await barrage(bombs.length, `mod_AAAAAAAA_${"A".repeat(43)}`, (bomb, answer) => {
      if (jsonRoute(bomb)) return expectJsonRouteRefusal(bomb, answer);
      expect(codeOf(answer), bomb.name).toBe("invalid_api_key");
    });
    report("invalid key", figures);
    expect(figures.peak - figures.before).toBeLessThan(UNAUTHENTICATED_GROWTH_BOUND);
  }, 120_000);

  it("gRPC-Web-text is refused as an unsupported media type before its body is read", async () => {
    const answer = await postH1(httpUrl, PATH, { "content-type": "application/grpc-web-text", "grpc-encoding": "br" }, Buffer.from(envelope(brotli60, true).toString("base64")));
    expect(answer.httpStatus).toBe(415);
  });

  it(`with a live key: ${BOMBS} bombs stop inflating at the ratio cap and are refused as payload_too_large`, async () => {
    const figures = await barrage(BOMBS, key, (bomb, answer) => {
      if (jsonRoute(bomb)) return expectJsonRouteRefusal(bomb, answer);
      expect(codeOf(answer), bomb.name).toBe("payload_too_large");
      expect(answer.grpcStatus ?? answer.httpStatus, bomb.name).toBe(answer.grpcStatus !== undefined ? 8 : 429);
      expect(answer.metadata["signature"], bomb.name).toBeDefined();
      expect(decodeURIComponent(answer.metadata["grpc-message"] ?? answer.body.toString()), bomb.name).toMatch(/inflates to more than \d+ bytes, over 100 times/);
    });
    report("live key", figures);
    expect(figures.peak - figures.before).toBeLessThan(AUTHENTICATED_GROWTH_BOUND);
  }, 300_000);

  it("with a live key, a message that inflates past the limit is payload_too_large on every protocol", async () => {
    const answers = await Promise.all([
      postH2(grpcUrl, PATH, { ...grpcHeaders("br"), "x-api-key": key }, envelope(brotliOver, true)),
      postH1(httpUrl, PATH, { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "grpc-encoding": "br", "x-api-key": key }, envelope(brotliOver, true)),
      postH1(httpUrl, PATH, { "content-type": "application/proto", "content-encoding": "br", "x-api-key": key }, brotliOver),
    ]);
    for (const answer of answers) {
      expect(codeOf(answer)).toBe("payload_too_large");
      expect(answer.grpcStatus ?? answer.httpStatus).toBe(answer.grpcStatus === undefined ? 429 : 8);
    }
  }, 60_000);

  it("the server still answers ordinary calls afterwards", async () => {
    const ok = await postH1(httpUrl, "/v1/moderate", { "content-type": "application/json", "x-api-key": key }, Buffer.from('{"input":[{"type":"text","text":"hello"}]}'));
    expect(ok.httpStatus).toBe(200);
  });
});
