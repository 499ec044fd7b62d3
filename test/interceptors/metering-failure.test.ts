import fs from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { callModerate } from "../support/protocol-clients.js";
import { useServerWithKey } from "../support/test-server.js";

// A call is answered 200 only once its usage line is in the journal (interceptors/metering.ts
// awaits meter.record): a journal that refuses the line must turn the answer into 503
// storage_unavailable, never into an answer that was served and not counted.

const started = useServerWithKey();
const CONNECT_UNAVAILABLE = 14;

/** The journal's directory replaced by a file, as readiness.test.ts does: no segment can be opened there. */
async function withJournalUnwritable<T>(run: () => Promise<T>): Promise<T> {
  const journal = path.join(started.server.dataDir, "metering-journal");
  const aside = `${journal}.aside`;
  await fs.rename(journal, aside);
  await fs.writeFile(journal, "not a directory");
  try {
    return await run();
  } finally {
    await fs.rm(journal);
    await fs.rename(aside, journal);
  }
}

async function usageTotals(): Promise<{ requests: number }> {
  const response = await fetch(`${started.server.httpUrl}/v1/usage`, { headers: { "x-api-key": started.key } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { totals: { requests: number } }).totals;
}

it("refuses a moderate call 503 storage_unavailable, signed, while its usage cannot be journaled, and counts nothing", async () => {
  const { server, key } = started;
  const requestBody = JSON.stringify({ input: [{ type: "text", text: "hello there" }] });
  await withJournalUnwritable(async () => {
    const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: requestBody });
    const body = await response.text();
    expect(response.status, body).toBe(503);
    expect(JSON.parse(body)).toMatchObject({ error: { code: "storage_unavailable" } });
    // The refusal is signed like every answer (docs/signing.md).
    const jwks = await (await fetch(`${server.httpUrl}/.well-known/jwks.json`)).json();
    const verified = await verifyModerationResponse({ jwks, requestBody, status: response.status, headers: response.headers, body });
    expect(verified).toMatchObject({ valid: true });

    // The same on an RPC protocol: Connect's UNAVAILABLE with the same code, not a message.
    const connect = await callModerate("connect", server, { input: [{ type: "text", text: "hello again" }] }, key);
    expect(connect.ok).toBe(false);
    if (!connect.ok) expect({ code: connect.code, status: connect.status }).toEqual({ code: "storage_unavailable", status: CONNECT_UNAVAILABLE });
  });
  // Neither refused call is billed; the journal writable again, the next call is served and counted.
  expect((await usageTotals()).requests).toBe(0);
  const served = await callModerate("json", server, { input: [{ type: "text", text: "hello once more" }] }, key);
  expect(served.ok).toBe(true);
  expect((await usageTotals()).requests).toBe(1);
});
