import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { createLogger } from "../../src/base/logger.js";
import { callJson } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/** Every line the server's logger writes, parsed (the real pino logger, writing to memory). */
const lines: Array<Record<string, unknown>> = [];
const raw: string[] = [];
const capture = { write: (line: string) => { raw.push(line); lines.push(JSON.parse(line) as Record<string, unknown>); } };
const requestLines = () => lines.filter((line) => line.msg === "request");

const SECRET_TEXT = "my neighbour's dog barked at the mail carrier again this morning";
let server: TestServer;
let key: string;
let accountId: string;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKER_THREADS: "1" }, overrides: { log: createLogger("info", capture) } });
  ({ key, accountId } = await server.createAccount("enterprise", 1_000_000));
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  lines.length = 0;
  raw.length = 0;
});

/** The one request line logged for the answer with this request id (the server logs it once the answer is sent). */
async function lineFor(requestId: string): Promise<Record<string, unknown>> {
  for (let tries = 0; tries < 50; tries++) {
    const found = requestLines().filter((line) => line.requestId === requestId);
    if (found.length > 1) throw new Error(`${found.length} request lines for ${requestId}`);
    if (found[0]) return found[0];
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no request line for ${requestId}: ${JSON.stringify(requestLines())}`);
}

describe("request log", () => {
  it("logs one line per request with id, route, protocol, status, account and duration, and never the key or the text", async () => {
    const outcome = await callJson(server.httpUrl, { input: [{ type: "text", text: SECRET_TEXT }] }, key);
    expect(outcome.ok).toBe(true);
    const requestId = outcome.headers["x-request-id"]!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/); // generated: the caller sent none
    const line = await lineFor(requestId);
    expect(line).toMatchObject({ level: 30, requestId, method: "POST", route: "/v1/moderate", protocol: "json", status: 200, accountId });
    expect(line.code).toBeUndefined();
    expect(typeof line.durationMs).toBe("number");
    expect(line.durationMs as number).toBeGreaterThan(0);
    expect(requestLines()).toHaveLength(1);
    const all = raw.join("");
    expect(all).not.toContain(key);
    expect(all).not.toContain(SECRET_TEXT);
    expect(all).not.toContain("barked");
  });

  it("logs refusals with their error code, and never the key that was refused", async () => {
    const badKey = `${key.slice(0, -4)}zzzz`;
    const outcome = await callJson(server.httpUrl, { input: [{ type: "text", text: SECRET_TEXT }] }, badKey);
    expect(outcome).toMatchObject({ ok: false, status: 401, code: "invalid_api_key" });
    const line = await lineFor(outcome.headers["x-request-id"]!);
    expect(line).toMatchObject({ route: "/v1/moderate", protocol: "json", status: 401, code: "invalid_api_key" });
    expect(line.accountId).toBeUndefined();
    expect(raw.join("")).not.toContain(badKey);
    expect(raw.join("")).not.toContain(SECRET_TEXT);
  });

  it("keeps a well-formed X-Request-Id and replaces one that could forge log lines", async () => {
    const kept = await fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "x-request-id": "lb-7f3a.c0ffee:42" },
      body: JSON.stringify({ input: [{ type: "text", text: "hello" }] }),
    });
    expect(kept.headers.get("x-request-id")).toBe("lb-7f3a.c0ffee:42");
    expect(await lineFor("lb-7f3a.c0ffee:42")).toMatchObject({ status: 200 });

    for (const forged of ["two words", "x".repeat(129), "id\",\"status\":200"]) {
      const replaced = await fetch(`${server.httpUrl}/healthz`, { headers: { "x-request-id": forged } });
      const id = replaced.headers.get("x-request-id")!;
      expect(id).not.toBe(forged);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("echoes the request id in gRPC response metadata and logs the call", async () => {
    let header: Headers | undefined;
    const client = createClient(ModerationService, createGrpcTransport({ baseUrl: server.grpcUrl }));
    await client.moderate(create(ModerateRequestSchema, { input: [{ type: "text", text: SECRET_TEXT }] }), {
      headers: { "x-api-key": key, "x-request-id": "grpc-call-1" },
      onHeader: (h) => (header = h),
    });
    expect(header?.get("x-request-id")).toBe("grpc-call-1");
    expect(await lineFor("grpc-call-1")).toMatchObject({
      route: "/moderation.v1.ModerationService/Moderate", protocol: "grpc", status: 200, accountId,
    });
    expect(raw.join("")).not.toContain(SECRET_TEXT);
  });

  it("logs probes at debug, so LOG_LEVEL=info keeps them out", async () => {
    const response = await fetch(`${server.httpUrl}/healthz`);
    expect(response.status).toBe(200);
    await fetch(`${server.httpUrl}/no/such/path`, { headers: { "x-request-id": "after-probe" } });
    expect(await lineFor("after-probe")).toMatchObject({ route: "unmatched", status: 404, code: "not_found" });
    expect(requestLines().filter((line) => line.route === "/healthz")).toHaveLength(0);
  });
});

describe("LOG_LEVEL", () => {
  it("at warn, no request lines", async () => {
    const quiet: string[] = [];
    const other = await startTestServer({ env: { WORKER_THREADS: "0" }, overrides: { log: createLogger("warn", { write: (l: string) => void quiet.push(l) }) } });
    try {
      expect((await fetch(`${other.httpUrl}/no/such/path`)).status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(quiet.filter((l) => l.includes("\"msg\":\"request\""))).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe("the stdout destination", () => {
  it("buffers lines but writes a lone one within about a second", async () => {
    const fs = await import("node:fs/promises");
    const path = await import("node:path");
    const os = await import("node:os");
    const { bufferedDestination } = await import("../../src/base/logger.js");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "log-dest-"));
    const file = path.join(dir, "out.log");
    try {
      const log = createLogger("info", bufferedDestination(file));
      log.info({ requestId: "lone" }, "request");
      const started = Date.now();
      let content = "";
      while (!content.includes("\"requestId\":\"lone\"") && Date.now() - started < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        content = await fs.readFile(file, "utf8").catch(() => "");
      }
      expect(content).toContain("\"requestId\":\"lone\"");
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
