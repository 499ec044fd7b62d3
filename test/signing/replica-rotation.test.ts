import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { toJwks, type SigningKeyRing } from "../../src/signing/key-ring.js";
import { loadSigningKeyRing } from "../../src/signing/load-key-ring.js";
import { readSigningConfig } from "../../src/signing/read-signing-config.js";
import { signedHttpResponse } from "./fixtures.js";

/**
 * Rotating a SIGNING_KEY_FILE shared by three replicas, one restart at a time, as docs/signing.md
 * § Rotation says. A replica is the key ring its settings load at start; after every restart a
 * fresh answer from each replica is checked against each replica's JWKS, as a client behind a load
 * balancer may fetch it (an audit measured 2 of 9 failing mid-rotation without the "next" step).
 */

const dir = mkdtempSync(join(tmpdir(), "signing-replicas-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFiles(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const key = join(dir, `${name}.pem`);
  const pub = join(dir, `${name}.pub`);
  writeFileSync(key, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
  writeFileSync(pub, publicKey.export({ format: "pem", type: "spki" }));
  return { key, pub };
}

const start = (env: Record<string, string>) => loadSigningKeyRing(readSigningConfig(env, { dataDir: dir }));

/** Failed checks out of every (signing replica, replica whose JWKS is used) pair. */
async function crossFailures(replicas: SigningKeyRing[]): Promise<number> {
  let failed = 0;
  for (const signer of replicas) {
    const answer = await signedHttpResponse(signer);
    for (const publisher of replicas) {
      if (!(await verifyModerationResponse({ ...answer, jwks: toJwks(publisher) })).valid) failed++;
    }
  }
  return failed;
}

/** Restarts the replicas one by one with `env`; the failures seen after each restart. */
async function rollingRestart(replicas: SigningKeyRing[], env: Record<string, string>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < replicas.length; i++) {
    replicas[i] = start(env);
    seen.push(await crossFailures(replicas));
  }
  return seen;
}

describe("SIGNING_KEY_FILE rotation across three replicas", () => {
  it("every answer verifies against every replica's JWKS at every restart of the three documented steps", async () => {
    const old = keyFiles("old");
    const fresh = keyFiles("new");
    const replicas = [0, 1, 2].map(() => start({ SIGNING_KEY_FILE: old.key }));
    expect(await crossFailures(replicas)).toBe(0);

    // 1. Publish the new key everywhere; the old one still signs.
    expect(await rollingRestart(replicas, { SIGNING_KEY_FILE: old.key, SIGNING_NEXT_KEYS_FILE: fresh.pub })).toEqual([0, 0, 0]);
    expect(toJwks(replicas[0]!).keys.map((k) => k.status)).toEqual(["active", "next"]);
    // 2. Switch: the new key signs, the old one stays published as retiring.
    expect(await rollingRestart(replicas, { SIGNING_KEY_FILE: fresh.key, SIGNING_RETIRING_KEYS_FILE: old.pub })).toEqual([0, 0, 0]);
    expect(toJwks(replicas[0]!).keys.map((k) => k.status)).toEqual(["active", "retiring"]);
    // 3. Drop the old key.
    expect(await rollingRestart(replicas, { SIGNING_KEY_FILE: fresh.key })).toEqual([0, 0, 0]);
    expect(replicas.map((r) => r.signer.keyId)).toEqual(Array(3).fill(start({ SIGNING_KEY_FILE: fresh.key }).signer.keyId));
  });

  it("without step 1, answers of the replicas already switched fail against the others' JWKS", async () => {
    const old = keyFiles("old-2");
    const fresh = keyFiles("new-2");
    const replicas = [0, 1, 2].map(() => start({ SIGNING_KEY_FILE: old.key }));
    expect(await rollingRestart(replicas, { SIGNING_KEY_FILE: fresh.key, SIGNING_RETIRING_KEYS_FILE: old.pub })).toEqual([2, 2, 0]);
  });
});
