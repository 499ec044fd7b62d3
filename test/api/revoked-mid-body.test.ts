import net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { AccountStore, Caller } from "../../src/accounts/account-store.js";
import { createApiKeyCheck, KEY_LOOKUP_TRUSTED_MS } from "../../src/interceptors/auth.js";
import { pollUntil } from "../support/poll.js";
import { useServerWithKey, type TestServer } from "../support/test-server.js";

/*
 * The key is looked up when a call's headers arrive, and its body may take up to
 * REQUEST_TIMEOUT_MS to follow. A key revoked (or its account disabled) meanwhile was still
 * answered 200 and billed: the chain reused the look-up made before the body. Now a look-up older
 * than KEY_LOOKUP_TRUSTED_MS is made again once the body is in, and the call refused
 * invalid_api_key, neither charged to the rate limit nor metered.
 */

const RPM = 1_000;
const TEXT = "hello there, a perfectly ordinary sentence";
const JSON_BODY = Buffer.from(JSON.stringify({ input: [{ type: "text", text: TEXT }] }));
const OPENAI_BODY = Buffer.from(JSON.stringify({ input: TEXT }));
const PROTO_BODY = Buffer.from(toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: TEXT }] })));
const CONNECT_PATH = "/moderation.v1.ModerationService/Moderate";

type Change = "key revoked" | "account disabled" | "nothing";
interface Case { route: string; path: string; contentType: string; body: Buffer; change: Change }

const CASES: Case[] = [
  { route: "JSON /v1/moderate", path: "/v1/moderate", contentType: "application/json", body: JSON_BODY, change: "key revoked" },
  { route: "OpenAI /v1/moderations", path: "/v1/moderations", contentType: "application/json", body: OPENAI_BODY, change: "account disabled" },
  { route: "Connect, application/json", path: CONNECT_PATH, contentType: "application/json", body: JSON_BODY, change: "key revoked" },
  { route: "Connect, application/proto", path: CONNECT_PATH, contentType: "application/proto", body: PROTO_BODY, change: "account disabled" },
  // Controls: a live key's slow body is looked up again and answered as before.
  { route: "JSON /v1/moderate", path: "/v1/moderate", contentType: "application/json", body: JSON_BODY, change: "nothing" },
  { route: "Connect, application/proto", path: CONNECT_PATH, contentType: "application/proto", body: PROTO_BODY, change: "nothing" },
];

const file = useServerWithKey();

interface RawAnswer { status: number; errorCode: string | undefined; body: string }

/**
 * Sends a POST's head and the first bytes of its body over HTTP/1.1, and returns a function that
 * sends the rest and resolves with the answer (read to the connection's close).
 */
function startSlowPost(server: TestServer, path: string, headers: Record<string, string>, body: Buffer): () => Promise<RawAnswer> {
  const socket = net.connect(Number(new URL(server.httpUrl).port), "127.0.0.1");
  let data = "";
  socket.on("data", (chunk: Buffer) => (data += chunk.toString("utf8")));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  const head = Object.entries({ host: "localhost", "content-length": String(body.byteLength), connection: "close", ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  socket.write(body.subarray(0, 10));
  return async () => {
    socket.write(body.subarray(10));
    await closed;
    const [top = "", rest = ""] = data.split("\r\n\r\n", 2);
    return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(top)?.[1]), errorCode: /\r\nx-error-code: *(\S+)/i.exec(top)?.[1], body: rest };
  };
}

async function change(server: TestServer, what: Change, account: { accountId: string; keyId: string }): Promise<void> {
  if (what === "key revoked") await server.ctx.accounts.revokeKey(account.keyId);
  if (what === "account disabled") await server.ctx.accounts.setDisabled(account.accountId, true);
}

/** Requests metered for the account, and places of its rate-limit window taken. */
async function chargedTo(server: TestServer, accountId: string): Promise<{ metered: number; rateLimited: number }> {
  await server.ctx.meter.flush();
  const usage = await server.ctx.usage.read(accountId, "day", 0, Date.now() + 86_400_000);
  const window = await server.ctx.rateLimiter.consume(accountId, RPM, { dryRun: true });
  return { metered: usage.totals.requests, rateLimited: RPM - window.remaining };
}

describe("a call whose key stops being live while its body arrives", () => {
  it.each(CASES)("$route, $change: answered as the key stands once the body is in", async ({ path, contentType, body, change: what }) => {
    const { server } = file;
    const account = await server.createAccount("enterprise", RPM);
    // The earlier case's body is given back, so that the wait below is for this one's.
    expect(await pollUntil(() => server.ctx.heldBodies.held === 0)).toBe(true);
    const finish = startSlowPost(server, path, { "content-type": contentType, "x-api-key": account.key }, body);
    // The key was looked up and found live: the body's first bytes are held for its account.
    expect(await pollUntil(() => server.ctx.heldBodies.held > 0)).toBe(true);
    await change(server, what, account);
    // Past the bound, so the look-up made from the headers is no longer trusted.
    await new Promise((resolve) => setTimeout(resolve, KEY_LOOKUP_TRUSTED_MS + 200));
    const answer = await finish();

    if (what === "nothing") {
      expect(answer.status).toBe(200);
      expect(await chargedTo(server, account.accountId)).toEqual({ metered: 1, rateLimited: 1 });
      return;
    }
    expect(answer.status).toBe(401);
    // The caller holds the key: it is told its own account is disabled, still invalid_api_key.
    const message = what === "account disabled" ? "The API key's account is disabled: its keys are refused until an operator enables it again." : "The API key is invalid or has been revoked.";
    if (path === CONNECT_PATH) {
      expect(answer.errorCode).toBe("invalid_api_key");
      expect(JSON.parse(answer.body)).toMatchObject({ code: "unauthenticated", message });
    } else {
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "invalid_api_key", message } });
    }
    expect(await chargedTo(server, account.accountId)).toEqual({ metered: 0, rateLimited: 0 });
  });
});

describe("createApiKeyCheck's look-up, asked again within one call", () => {
  const KEY = `mod_AAAAAAAA_${"A".repeat(43)}`;
  const header = new Headers({ "x-api-key": KEY });
  /** A store whose answer the test sets, counting the look-ups it gets. */
  const fakeStore = (answer: { caller: Caller | undefined }) => {
    const asked = { count: 0 };
    const authenticate = async () => {
      asked.count++;
      return answer.caller;
    };
    const store = { cachedCaller: () => undefined, authenticate } as unknown as AccountStore;
    return { store, asked };
  };
  const CALLER = { accountId: "acct_1", keyId: "key_1" } as Caller;

  it("is reused within the bound and made again past it, when the key was live", async () => {
    let now = 0;
    const answer: { caller: Caller | undefined } = { caller: CALLER };
    const { store, asked } = fakeStore(answer);
    const check = createApiKeyCheck(store, () => now);
    const values = createContextValues();
    expect(await check(header, values)).toBe(true);
    now = KEY_LOOKUP_TRUSTED_MS - 1;
    expect(await check(header, values)).toBe(true);
    expect(asked.count).toBe(1);
    answer.caller = undefined;
    now = KEY_LOOKUP_TRUSTED_MS;
    expect(await check(header, values)).toBe(false);
    expect(asked.count).toBe(2);
  });

  it("is never made again for a key that was not live: its body was not held or decoded", async () => {
    let now = 0;
    const answer: { caller: Caller | undefined } = { caller: undefined };
    const { store, asked } = fakeStore(answer);
    const check = createApiKeyCheck(store, () => now);
    const values = createContextValues();
    expect(await check(header, values)).toBe(false);
    answer.caller = CALLER;
    now = 10 * KEY_LOOKUP_TRUSTED_MS;
    expect(await check(header, values)).toBe(false);
    expect(asked.count).toBe(1);
  });
});
