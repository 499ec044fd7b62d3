import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type StoreKind, type TestServer } from "../support/test-server.js";

/**
 * "Last used" is written in batches (every 5 s); what it records must be the call's time, not the
 * batch's, or a key revoked between its last call and the write reads as used after revocation.
 */
describe.each<StoreKind>(["sqlite", "postgres"])("key last-used time (%s)", (store) => {
  let now = Date.UTC(2026, 11, 8, 12, 0, 0);
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ store, overrides: { clock: () => now } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const moderate = (key: string) =>
    fetch(`${server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: [{ type: "text", text: "hello" }] }),
    });

  it("records the call's time, so a key revoked after its last call is not shown used after revocation", async () => {
    const { key, keyId } = await server.createAccount();
    const calledAt = now;
    expect((await moderate(key)).status).toBe(200);
    now += 1_000;
    await server.ctx.accounts.revokeKey(keyId);
    now += 5_000;
    await server.ctx.keyUsage.flush();

    const info = await server.ctx.accounts.getKey(keyId);
    expect(info?.revokedAt).toBe(calledAt + 1_000);
    expect(info?.lastUsedAt).toBe(calledAt);
    expect(info!.lastUsedAt!).toBeLessThanOrEqual(info!.revokedAt!);
  });

  it("records the latest of a key's calls in one batch", async () => {
    const { key, keyId } = await server.createAccount();
    expect((await moderate(key)).status).toBe(200);
    now += 2_000;
    const lastCallAt = now;
    expect((await moderate(key)).status).toBe(200);
    now += 3_000;
    await server.ctx.keyUsage.flush();

    expect((await server.ctx.accounts.getKey(keyId))?.lastUsedAt).toBe(lastCallAt);
  });
});
