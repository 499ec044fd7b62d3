import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { privateKeyForWorkers } from "../../src/signing/signer.js";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

const INPUTS = [
  { input: [{ type: "text", text: "Thanks for the quick reply, see you at the meeting tomorrow." }] },
  { input: [{ type: "text", text: "I will find you and kill you, you worthless idiot." }, { type: "text", text: "see you at noon" }] },
  { input: [{ type: "text", text: "A calm paragraph about gardening. ".repeat(60) + "I want to kill myself tonight." }] },
  // Non-ASCII in the answer (explanation spans quote the text) and a lone surrogate: the JSON goes
  // out as text, so its UTF-8 length and bytes must be the ones signed.
  { input: [{ type: "text", text: "Ünïcödé 🙂 — I will kill you, you wörthless idiöt \ud800" }] },
];

const withoutId = (body: { id?: string }) => ({ ...body, id: undefined });

// WORKER_THREADS moves classification and signing off the event loop; callers must not be able
// to tell, except by speed: same verdicts, same contract, signatures that verify.
describe("WORKER_THREADS=2 against WORKER_THREADS=0", () => {
  let pooled: { server: TestServer; key: string };
  let inline: { server: TestServer; key: string };
  beforeAll(async () => {
    [pooled, inline] = await Promise.all([
      startServerWithKey({ env: { WORKER_THREADS: "2" } }),
      startServerWithKey({ env: { WORKER_THREADS: "0" } }),
    ]);
  });
  afterAll(async () => {
    await pooled?.server.close();
    await inline?.server.close();
  });

  it.each(PROTOCOLS)("gives the same answers over %s", async (protocol) => {
    for (const body of INPUTS) {
      const a = await callModerate(protocol, pooled.server, body, pooled.key);
      const b = await callModerate(protocol, inline.server, body, inline.key);
      if (!a.ok || !b.ok) throw new Error(`call failed: ${JSON.stringify(a.ok ? b : a)}`);
      expect(withoutId(a.body)).toEqual(withoutId(b.body));
    }
  });

  it("signs JSON responses in the workers with the published key", async () => {
    // The pooled server's signer delegates (holds no key); the inline one signs itself.
    expect(privateKeyForWorkers(pooled.server.ctx.signingKeys.signer)).toBeUndefined();
    expect(privateKeyForWorkers(inline.server.ctx.signingKeys.signer)).toBeDefined();
    // Text-only calls are answered whole (classified, rendered, signed) by one worker job.
    expect(pooled.server.ctx.workerAnswerer).toBeDefined();
    expect(inline.server.ctx.workerAnswerer).toBeUndefined();
    const jwks = await (await fetch(`${pooled.server.httpUrl}/.well-known/jwks.json`)).json();
    const requests = INPUTS.map((body) => JSON.stringify(body));
    // Concurrent, so several signatures share a batch.
    const responses = await Promise.all(requests.map((requestBody) =>
      fetch(`${pooled.server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": pooled.key }, body: requestBody })));
    for (let i = 0; i < responses.length; i++) {
      const response = responses[i]!;
      const body = new Uint8Array(await response.arrayBuffer());
      const headers = Object.fromEntries(response.headers);
      expect(await verifyModerationResponse({ requestBody: requests[i]!, status: response.status, headers, body, jwks })).toMatchObject({ valid: true });
      // Swapped request bodies must not verify: each signature is bound to its own request.
      const other = requests[(i + 1) % requests.length]!;
      expect(await verifyModerationResponse({ requestBody: other, status: response.status, headers, body, jwks })).toMatchObject({ valid: false });
    }
  });

  it("signs errors in the workers too", async () => {
    const requestBody = JSON.stringify({ input: [] });
    const response = await fetch(`${pooled.server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": pooled.key }, body: requestBody });
    expect(response.status).toBe(400);
    const jwks = await (await fetch(`${pooled.server.httpUrl}/.well-known/jwks.json`)).json();
    const body = new Uint8Array(await response.arrayBuffer());
    expect(await verifyModerationResponse({ requestBody, status: 400, headers: Object.fromEntries(response.headers), body, jwks })).toMatchObject({ valid: true });
  });
});
