import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { createListSigningKeys } from "../../src/rpc/list-signing-keys.js";
import { toPublicJwk } from "../../src/signing/ed25519-keys.js";
import { createKeyRing, toJwks } from "../../src/signing/key-ring.js";
import { loadSigningKeyRing } from "../../src/signing/load-key-ring.js";
import { readSigningConfig } from "../../src/signing/read-signing-config.js";
import { startTestServer } from "../support/test-server.js";
import { signedHttpResponse } from "./fixtures.js";

/** SIGNING_NEXT_KEYS_FILE: a key published before any server signs with it (docs/signing.md § Rotation). */

const dir = mkdtempSync(join(tmpdir(), "signing-next-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const active = generateKeyPairSync("ed25519");
const next = generateKeyPairSync("ed25519");
const activeKid = toPublicJwk(active.privateKey).kid;
const nextKid = toPublicJwk(next.publicKey).kid;
const keyFile = join(dir, "active.pem");
const nextFile = join(dir, "next.pub");
writeFileSync(keyFile, active.privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
writeFileSync(nextFile, next.publicKey.export({ format: "pem", type: "spki" }));

describe("a next key", () => {
  it("is published as \"next\" in the JWKS and ListSigningKeys, after the active key, and never signs", async () => {
    const ring = loadSigningKeyRing(readSigningConfig({ SIGNING_KEY_FILE: keyFile, SIGNING_NEXT_KEYS_FILE: nextFile }, { dataDir: dir }));
    expect(toJwks(ring).keys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [nextKid, "next"]]);
    const listed = createListSigningKeys({ keys: ring })({} as never).keys;
    expect(listed.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [nextKid, "next"]]);

    const answer = await signedHttpResponse(ring);
    expect(ring.signer.keyId).toBe(activeKid);
    expect(await verifyModerationResponse(answer)).toMatchObject({ valid: true, keyId: activeKid });
    // Only the next key published: the answer is not one of its signatures.
    const onlyNext = { keys: toJwks(ring).keys.filter((k) => k.kid === nextKid) };
    expect(await verifyModerationResponse({ ...answer, jwks: onlyNext })).toMatchObject({ valid: false, keyId: activeKid });
  });

  it("is published once, as active, when it is the active key (SIGNING_NEXT_KEYS_FILE left in place after the switch)", () => {
    const ring = createKeyRing({ active: { privateKey: next.privateKey, createdAt: 0 }, next: [{ publicKey: next.publicKey, createdAt: 0 }], retiring: [] });
    expect(ring.publishedKeys.map((k) => [k.kid, k.status])).toEqual([[nextKid, "active"]]);
  });

  it("needs SIGNING_KEY_FILE or SIGNING_KEY", () => {
    expect(() => readSigningConfig({ SIGNING_NEXT_KEYS_FILE: nextFile }, { dataDir: dir })).toThrow(/^SIGNING_NEXT_KEYS_FILE needs SIGNING_KEY_FILE or SIGNING_KEY/);
    expect(readSigningConfig({ SIGNING_KEY_FILE: keyFile, SIGNING_NEXT_KEYS_FILE: ` ${nextFile} ` }, { dataDir: dir })).toMatchObject({ nextKeysFile: nextFile });
  });

  it("names the variable when its file is missing or holds no public key", () => {
    const load = (file: string) => loadSigningKeyRing(readSigningConfig({ SIGNING_KEY_FILE: keyFile, SIGNING_NEXT_KEYS_FILE: file }, { dataDir: dir }));
    expect(() => load(join(dir, "missing.pub"))).toThrow(`SIGNING_NEXT_KEYS_FILE: cannot read ${join(dir, "missing.pub")} (ENOENT)`);
    expect(() => load(keyFile)).toThrow(`SIGNING_NEXT_KEYS_FILE ${keyFile} holds no "-----BEGIN PUBLIC KEY-----" block`);
  });

  it("a server publishes it on both routes and signs its answers with the active key", async () => {
    const server = await startTestServer({ env: { SIGNING_KEY_FILE: keyFile, SIGNING_NEXT_KEYS_FILE: nextFile } });
    try {
      const jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
      expect(jwks.keys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [nextKid, "next"]]);
      const client = createClient(ModerationService, createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }));
      expect((await client.listSigningKeys({})).keys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [nextKid, "next"]]);

      const requestBody = JSON.stringify({ input: [{ type: "text", text: "signed while a next key is published" }] });
      const response = await fetch(`${server.httpUrl}/v1/moderate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": (await server.createAccount("pro")).key },
        body: requestBody,
      });
      const answer = { requestBody, status: response.status, headers: Object.fromEntries(response.headers), body: new Uint8Array(await response.arrayBuffer()) };
      expect(await verifyModerationResponse({ ...answer, jwks })).toMatchObject({ valid: true, keyId: activeKid });
    } finally {
      await server.close();
    }
  });
});
