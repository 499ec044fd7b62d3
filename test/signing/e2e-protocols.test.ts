import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { create, fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { ModerateRequestSchema, ModerateResponseSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyConnectResult, verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import type { Jwks } from "../../src/signing/jwk.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { verifyByHand } from "./verify-by-hand.js";

const run = promisify(execFile);
const moderate = ModerationService.method.moderate;

let server: TestServer;
let apiKey: string;
let jwks: Jwks;
const dir = mkdtempSync(join(tmpdir(), "signing-e2e-"));

beforeAll(async () => {
  server = await startTestServer();
  apiKey = (await server.createAccount("pro")).key;
  jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function postJson(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${url}/v1/moderate`, { method: "POST", headers, body });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers.entries()),
    body: new Uint8Array(await response.arrayBuffer()),
    requestBody: new TextEncoder().encode(body),
  };
}

describe("JSON route over a real socket", () => {
  const requestText = '{"input":[{"type":"text","text":"have a lovely day"},{"type":"text","text":"and you"}]}';

  it("signs a success that our verifier and a hand-built WebCrypto check both accept", async () => {
    const response = await postJson(server.httpUrl, requestText, { "content-type": "application/json", "x-api-key": apiKey });
    expect(response.status).toBe(200);
    expect(await verifyModerationResponse({ ...response, jwks })).toMatchObject({ valid: true, keyId: jwks.keys[0]?.kid });
    expect(await verifyByHand({ ...response, jwks })).toBe(true);
    const other = new TextEncoder().encode(requestText.replace("lovely", "horrible"));
    expect(await verifyModerationResponse({ ...response, requestBody: other, jwks })).toMatchObject({ valid: false });
  });

  it.each([
    ["no API key", requestText, { "content-type": "application/json" }, 401],
    ["a bad API key", requestText, { "content-type": "application/json", "x-api-key": "mk_nope" }, 401],
    ["malformed JSON", '{"input":[', { "content-type": "application/json", "x-api-key": "KEY" }, 400],
  ])("signs the error for %s", async (_name, body, headers: Record<string, string>, status) => {
    const withKey = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === "KEY" ? apiKey : v]));
    const response = await postJson(server.httpUrl, body, withKey);
    expect(response.status).toBe(status);
    expect(await verifyModerationResponse({ ...response, jwks })).toMatchObject({ valid: true });
    expect(await verifyByHand({ ...response, jwks })).toBe(true);
  });

  it("binds a 415 (wrong content type) to the caller's bytes, not to an empty body", async () => {
    const response = await postJson(server.httpUrl, requestText, { "content-type": "text/plain", "x-api-key": apiKey });
    expect(response.status).toBe(415);
    expect(await verifyModerationResponse({ ...response, jwks })).toMatchObject({ valid: true });
    expect(await verifyModerationResponse({ ...response, requestBody: new Uint8Array(), jwks })).toMatchObject({ valid: false });
  });
});

describe.each([
  ["connect+proto", () => createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1", useBinaryFormat: true })],
  ["connect+json", () => createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1", useBinaryFormat: false })],
  ["grpc-web", () => createGrpcWebTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" })],
  ["grpc (connect-node over h2c)", () => createGrpcTransport({ baseUrl: server.grpcUrl })],
] as const)("%s", (_name, makeTransport: () => Transport) => {
  const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "I will hurt you" }, { type: "text", text: "now" }] });

  it("signs a success, bound to the request", async () => {
    const client = createClient(ModerationService, makeTransport());
    let header = new Headers();
    let trailer = new Headers();
    const message = await client.moderate(request, {
      headers: { "x-api-key": apiKey },
      onHeader: (h) => (header = h),
      onTrailer: (t) => (trailer = t),
    });
    const result = { message, header, trailer };
    expect(await verifyConnectResult({ method: moderate, request, result, jwks })).toMatchObject({ valid: true });
    const other = create(ModerateRequestSchema, { input: [{ type: "text", text: "I will hug you" }, { type: "text", text: "now" }] });
    expect(await verifyConnectResult({ method: moderate, request: other, result, jwks })).toMatchObject({
      valid: false,
      reason: "the response was signed for a different request",
    });
    message.flagged = !message.flagged;
    expect(await verifyConnectResult({ method: moderate, request, result, jwks })).toMatchObject({ valid: false });
  });

  it("signs an error in its metadata", async () => {
    const client = createClient(ModerationService, makeTransport());
    const error = await client.moderate(request, { headers: { "x-api-key": "mk_invalid" } }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(error?.code).toBe(Code.Unauthenticated);
    expect(await verifyConnectResult({ method: moderate, request, result: { error: error! }, jwks })).toMatchObject({ valid: true });
  });
});

describe("gRPC with @grpc/grpc-js and raw bytes", () => {
  const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "you are an idiot" }, { type: "text", text: "really" }] });
  const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);

  function call(key: string) {
    const client = new grpc.Client(new URL(server.grpcUrl).host, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", key);
    const received = new Headers();
    const collect = (md: grpc.Metadata) => {
      for (const [k, v] of Object.entries(md.getMap())) if (!k.endsWith("-bin")) received.append(k, String(v));
    };
    return new Promise<{ error: grpc.ServiceError | null; bytes: Buffer | undefined; metadata: Headers }>((resolve) => {
      const c = client.makeUnaryRequest(
        "/moderation.v1.ModerationService/Moderate",
        (b: Buffer) => b,
        (b: Buffer) => b, // raw response bytes: exactly what was signed
        Buffer.from(requestBytes),
        metadata,
        (error, bytes) => {
          client.close();
          if (error) collect(error.metadata);
          resolve({ error, bytes, metadata: received });
        },
      );
      c.on("metadata", collect);
    });
  }

  it("signs the exact message bytes on the wire", async () => {
    const { error, bytes, metadata } = await call(apiKey);
    expect(error).toBeNull();
    expect(fromBinary(ModerateResponseSchema, bytes!).results).toHaveLength(2);
    const result = await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: bytes! }, metadata, jwks });
    expect(result).toMatchObject({ valid: true });
    const tampered = Buffer.from(bytes!);
    tampered[tampered.length - 1]! ^= 1;
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: tampered }, metadata, jwks })).toMatchObject({ valid: false });
  });

  it("signs errors in the trailers", async () => {
    const { error, metadata } = await call("mk_invalid");
    expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const outcome = { ok: false as const, code: error!.code, message: error!.details };
    // No body is decoded without a live key, so the refusal is bound to an empty request (docs/signing.md).
    const empty = new Uint8Array();
    expect(await verifyRpcResponse({ requestBytes: empty, outcome, metadata, jwks })).toMatchObject({ valid: true });
    expect(await verifyRpcResponse({ requestBytes, outcome, metadata, jwks })).toMatchObject({ valid: false });
    expect(await verifyRpcResponse({ requestBytes: empty, outcome: { ...outcome, code: grpc.status.OK + 5 }, metadata, jwks })).toMatchObject({ valid: false });
  });
});

describe("key publication", () => {
  it("ListSigningKeys lists the JWKS keys, without an API key", async () => {
    const client = createClient(ModerationService, createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }));
    const { keys } = await client.listSigningKeys({});
    expect(keys.map((k) => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x, status: k.status }))).toEqual(
      jwks.keys.map((k) => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x, status: k.status })),
    );
    expect(keys[0]?.status).toBe("active");
  });
});

describe("curl -si capture checked by modctl verify", () => {
  const requestFile = join(dir, "req.json");
  writeFileSync(requestFile, '{"input":[{"type":"text","text":"curl says hi"}]}\n');
  const modctl = (args: string[]) =>
    run(process.execPath, ["bin/modctl.mjs", "verify", ...args], { env: { ...process.env } }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );

  it.each([
    ["HTTP/1.1", () => [`${server.httpUrl}/v1/moderate`]],
    ["HTTP/2 (h2c)", () => ["--http2-prior-knowledge", `${server.grpcUrl}/v1/moderate`]],
  ])("%s: exit 0 for the request sent, 1 for another", async (_name, target) => {
    const responseFile = join(dir, `resp-${_name.replace(/\W/g, "")}.txt`);
    const { stdout } = await run("curl", ["-si", "-o", responseFile, "-w", "%{http_code}", "-H", "content-type: application/json", "-H", `x-api-key: ${apiKey}`, "--data-binary", `@${requestFile}`, ...target()]);
    expect(stdout).toBe("200");
    const jwksUrl = `${server.httpUrl}/.well-known/jwks.json`;
    const ok = await modctl(["--request", requestFile, "--response", responseFile, "--jwks", jwksUrl]);
    expect(ok).toMatchObject({ code: 0 });
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, status: 200 });

    const otherFile = join(dir, "other.json");
    writeFileSync(otherFile, '{"input":[{"type":"text","text":"curl says bye"}]}\n');
    const bad = await modctl(["--request", otherFile, "--response", responseFile, "--jwks", jwksUrl]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ valid: false, reason: "the response was signed for a different request body" });
  });
});
