import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrpcJsClient } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// docs/api.md and docs/openai-compatibility.md: when a call sends both X-API-Key and
// `Authorization: Bearer`, X-API-Key is the key used. So that key's account is the one
// authenticated, rate-limited (its plan's limit) and billed, and a revoked X-API-Key is refused
// even beside a live Bearer token.

type Account = { accountId: string; key: string; keyId: string };
let server: TestServer;
/** The X-API-Key's account: its own large limit, so the limit header says whose budget was charged. */
let chosen: Account;
/** The Bearer token's account, with a limit of its own (the usage reads here count against it too). */
let other: Account;
let revoked: Account;

beforeAll(async () => {
  server = await startTestServer();
  chosen = await server.createAccount("enterprise", 1_000_000);
  other = await server.createAccount("enterprise", 500);
  revoked = await server.createAccount("enterprise", 1_000_000);
  await server.ctx.accounts.revokeKey(revoked.keyId);
});
afterAll(() => server?.close());

const ROUTES = [
  { route: "/v1/moderate", body: { input: [{ type: "text", text: "hello there" }] }, rpc: false },
  { route: "/v1/moderations", body: { input: "hello there" }, rpc: false },
  { route: "/moderation.v1.ModerationService/Moderate", body: { input: [{ type: "text", text: "hello there" }] }, rpc: true },
];

async function post(route: string, body: unknown, apiKey: string, bearer: string) {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey, authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function requestsBilled(account: Account): Promise<number> {
  const response = await fetch(`${server.httpUrl}/v1/usage`, { headers: { "x-api-key": account.key } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { totals: { requests: number } }).totals.requests;
}

describe.each(ROUTES)("$route with both headers", ({ route, body, rpc }) => {
  it("serves, limits and bills the call as the X-API-Key's account, not the Bearer token's", async () => {
    const chosenBefore = await requestsBilled(chosen);
    const otherBefore = await requestsBilled(other);
    const answer = await post(route, body, chosen.key, other.key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // The signed scope names the account that asked; the limit is that account's.
    expect(answer.headers.get("moderation-account")).toBe(chosen.accountId);
    expect(answer.headers.get("x-ratelimit-limit")).toBe("1000000");
    expect(await requestsBilled(chosen)).toBe(chosenBefore + 1);
    expect(await requestsBilled(other)).toBe(otherBefore);
  });

  it("serves a live X-API-Key beside a revoked Bearer token", async () => {
    const answer = await post(route, body, chosen.key, revoked.key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get("moderation-account")).toBe(chosen.accountId);
  });

  it("refuses a revoked X-API-Key even beside a live Bearer token", async () => {
    const otherBefore = await requestsBilled(other);
    const answer = await post(route, body, revoked.key, other.key);
    expect(answer.status).toBe(401);
    // Connect carries the service's code in x-error-code; the JSON routes in the body.
    const code = rpc ? answer.headers.get("x-error-code") : answer.body.error.code;
    const message = rpc ? answer.body.message : answer.body.error.message;
    expect({ code, message }).toEqual({ code: "invalid_api_key", message: "The API key is invalid or has been revoked." });
    expect(await requestsBilled(other)).toBe(otherBefore);
  });
});

describe("gRPC with both metadata entries", () => {
  function call(apiKey: string, bearer: string): Promise<{ error: grpc.ServiceError | null; account: string | undefined }> {
    const client = createGrpcJsClient(server.grpcUrl);
    const metadata = new grpc.Metadata();
    metadata.set("x-api-key", apiKey);
    metadata.set("authorization", `Bearer ${bearer}`);
    let account: string | undefined;
    return new Promise((resolve) => {
      const pending = client.Moderate({ input: [{ type: "text", text: "hello there" }] }, metadata, (error: grpc.ServiceError | null) => {
        client.close();
        resolve({ error, account });
      });
      pending.on("metadata", (md: grpc.Metadata) => {
        account ??= md.get("moderation-account")[0]?.toString();
      });
      pending.on("status", (status: grpc.StatusObject) => {
        account ??= status.metadata.get("moderation-account")[0]?.toString();
      });
    });
  }

  it("uses the X-API-Key: a live one is served as its account, a revoked one refused", async () => {
    const served = await call(chosen.key, revoked.key);
    expect(served.error).toBeNull();
    expect(served.account).toBe(chosen.accountId);
    const refused = await call(revoked.key, other.key);
    expect(refused.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(refused.error?.metadata.get("x-error-code")[0]).toBe("invalid_api_key");
  });
});
