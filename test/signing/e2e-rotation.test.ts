import { afterAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSigningCommand } from "../../src/cli/commands/signing.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const dataDir = mkdtempSync(join(tmpdir(), "signing-rotation-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function withServer<T>(work: (server: TestServer, apiKey: string) => Promise<T>): Promise<T> {
  const server = await startTestServer({ env: { DATA_DIR: dataDir } });
  try {
    return await work(server, (await server.createAccount("pro")).key);
  } finally {
    await server.close();
  }
}

async function moderate(server: TestServer, apiKey: string, text: string) {
  const requestBody = JSON.stringify({ input: [{ type: "text", text }] });
  const response = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: requestBody,
  });
  return { requestBody, status: response.status, headers: Object.fromEntries(response.headers), body: new Uint8Array(await response.arrayBuffer()) };
}

async function modctlSigning(args: string[]): Promise<{ code: number; output: any }> {
  const writes: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (writes.push(String(chunk)), true));
  try {
    const code = await runSigningCommand(args, { DATA_DIR: dataDir });
    return { code, output: JSON.parse(writes.join("")) };
  } finally {
    spy.mockRestore();
  }
}

describe("key rotation across server restarts (modctl signing)", () => {
  it("old responses verify while their key is published, and stop after it is retired", async () => {
    const old = await withServer((server, key) => moderate(server, key, "signed before the rotation"));
    const oldKid = (await withServer((server) => fetchJwks(`${server.httpUrl}/.well-known/jwks.json`))).keys[0]!.kid;

    const rotated = await modctlSigning(["rotate"]);
    expect(rotated).toMatchObject({ code: 0, output: { retiringKid: oldKid } });
    const newKid: string = rotated.output.activeKid;

    await withServer(async (server, key) => {
      const jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
      expect(jwks.keys.map((k) => [k.kid, k.status])).toEqual([[newKid, "active"], [oldKid, "retiring"]]);
      expect(await verifyModerationResponse({ ...old, jwks })).toMatchObject({ valid: true, keyId: oldKid });
      const fresh = await moderate(server, key, "signed after the rotation");
      expect(await verifyModerationResponse({ ...fresh, jwks })).toMatchObject({ valid: true, keyId: newKid });
    });

    expect(await modctlSigning(["retire", oldKid])).toMatchObject({ code: 0 });
    await withServer(async (server) => {
      const jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
      expect(await verifyModerationResponse({ ...old, jwks })).toEqual({
        valid: false,
        reason: `key ${oldKid} is not in the JWKS (unknown or retired)`,
        keyId: oldKid,
        created: expect.any(Number),
      });
    });
    // Four server start-ups in a row: about 25 s on a loaded 2-core machine, so more than the default 30 s.
  }, 120_000);

  it("a running server publishes a key rotated in by another process, with its compute workers signing", async () => {
    const server = await startTestServer({ env: { DATA_DIR: dataDir, WORKER_THREADS: "1" } });
    try {
      const kids = async () => (await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`)).keys.map((k) => k.kid);
      const before = await kids();
      const rotated = await modctlSigning(["rotate"]);
      expect(rotated.code).toBe(0);
      // Before any restarted replica signs with the new key, this one publishes it (the workers'
      // ring copied the list once, so it never changed until a restart).
      let published = false;
      for (let tries = 0; tries < 100 && !published; tries++) {
        published = (await kids()).includes(rotated.output.activeKid);
        if (!published) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(published).toBe(true);
      expect(await kids()).toEqual(expect.arrayContaining(before));
    } finally {
      await server.close();
    }
  }, 60_000);
});
