import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect, promisify } from "node:util";
import { execFile } from "node:child_process";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { ConfigError, readConfig } from "../../src/config/config.js";
import { openDataDirKeyRing, readKeyManifest, retireDataDirKey, rotateDataDirKey } from "../../src/signing/data-dir-key-store.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { dataDirKeyWithDatabaseWarning, loadSigningKeyRing, signingKeyFileWarning } from "../../src/signing/load-key-ring.js";
import { readSigningConfig, SigningConfigError } from "../../src/signing/read-signing-config.js";
import { signedHttpResponse } from "./fixtures.js";

const run = promisify(execFile);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "signing-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("DATA_DIR key store", () => {
  it("creates a key on first start with 0700 dir and 0600 private key, and reuses it after", async () => {
    const store = join(dir, "signing");
    const ring = openDataDirKeyRing(store, { now: () => 1_800_000_000_000 });
    expect(statSync(store).mode & 0o777).toBe(0o700);
    expect(statSync(join(store, `${ring.signer.keyId}.key.pem`)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(store, "keys.json"), "utf8")).not.toContain("PRIVATE");
    expect(ring.publishedKeys).toEqual([{ kid: ring.signer.keyId, x: expect.any(String), status: "active", createdAt: 1_800_000_000 }]);
    expect(openDataDirKeyRing(store).signer.keyId).toBe(ring.signer.keyId);
  });

  it("rotation: the new key signs, the old key still verifies old responses until retired", async () => {
    const store = join(dir, "signing");
    const before = openDataDirKeyRing(store);
    const oldResponse = await signedHttpResponse(before);

    const { activeKid, retiringKid } = rotateDataDirKey(store);
    expect(retiringKid).toBe(before.signer.keyId);
    const after = openDataDirKeyRing(store);
    expect(after.signer.keyId).toBe(activeKid);
    expect(after.publishedKeys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [retiringKid, "retiring"]]);
    // Only the active private key stays on disk.
    expect(readdirSync(store).filter((f) => f.endsWith(".key.pem"))).toEqual([`${activeKid}.key.pem`]);

    expect(await verifyModerationResponse({ ...oldResponse, jwks: toJwks(after) })).toMatchObject({ valid: true, keyId: retiringKid });
    expect(await verifyModerationResponse({ ...await signedHttpResponse(after), jwks: toJwks(after) })).toMatchObject({ valid: true, keyId: activeKid });

    expect(() => retireDataDirKey(store, activeKid)).toThrow(`key ${activeKid} is active; rotate first, then retire it`);
    retireDataDirKey(store, retiringKid);
    const retired = openDataDirKeyRing(store);
    expect(retired.publishedKeys.map((k) => k.kid)).toEqual([activeKid]);
    expect(await verifyModerationResponse({ ...oldResponse, jwks: toJwks(retired) })).toMatchObject({
      valid: false,
      reason: `key ${retiringKid} is not in the JWKS (unknown or retired)`,
    });
  });

  it("refuses to start over private keys whose keys.json is gone, instead of making a new key", () => {
    const store = join(dir, "signing");
    const { signer } = openDataDirKeyRing(store);
    rmSync(join(store, "keys.json"));
    expect(() => openDataDirKeyRing(store)).toThrow(`holds private keys (${signer.keyId}.key.pem) but no keys.json`);
    expect(readdirSync(store).filter((f) => f !== "in-use")).toEqual([`${signer.keyId}.key.pem`]);
    // Moving the key away is the documented way to start over.
    rmSync(join(store, `${signer.keyId}.key.pem`));
    expect(openDataDirKeyRing(store).signer.keyId).not.toBe(signer.keyId);
  });

  it("running servers publish a rotation at once, keep signing with their key, and never unpublish it", async () => {
    const store = join(dir, "signing");
    const running = openDataDirKeyRing(store);
    const ownKid = running.signer.keyId;
    const { activeKid } = rotateDataDirKey(store);
    expect(running.signer.keyId).toBe(ownKid);
    expect(running.publishedKeys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [ownKid, "retiring"]]);
    // This process still signs with it: retiring it is refused unless forced (an audit saw 2 of 9 checks fail).
    expect(() => retireDataDirKey(store, ownKid)).toThrow(`key ${ownKid} still signs on 1 running server(s)`);
    expect(retireDataDirKey(store, ownKid, { force: true }).stillSigning).toMatchObject([{ kid: ownKid, pid: process.pid }]);
    // Still published while it signs, as retiring: it was listed as a second "active" key.
    expect(running.publishedKeys.map((k) => [k.kid, k.status])).toEqual([[activeKid, "active"], [ownKid, "retiring"]]);
    writeFileSync(join(store, "keys.json"), "{ half-written");
    expect(running.publishedKeys.map((k) => k.kid)).toEqual([activeKid, ownKid]);
  });

  it("replicas starting together on an empty DATA_DIR agree on one key", async () => {
    const store = join(dir, "signing");
    // Each process spins until the same instant, so their first-start code overlaps.
    const startAt = Date.now() + 4000;
    const script = `import { openDataDirKeyRing } from ${JSON.stringify(join(process.cwd(), "src/signing/data-dir-key-store.ts"))};
      while (Date.now() < ${startAt});
      process.stdout.write(openDataDirKeyRing(${JSON.stringify(store)}).signer.keyId);`;
    const starts = Array.from({ length: 4 }, () => run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]));
    const kids = (await Promise.all(starts)).map((r) => r.stdout);
    expect(new Set(kids).size).toBe(1);
    expect(readdirSync(store).filter((f) => f.endsWith(".key.pem"))).toEqual([`${kids[0]}.key.pem`]);
  });

  it("two rotations at once never lose a key: each that succeeds is published, the other is refused", async () => {
    const store = join(dir, "signing");
    openDataDirKeyRing(store);
    for (let round = 0; round < 4; round++) {
      const startAt = Date.now() + 3000;
      const script = `import { rotateDataDirKey } from ${JSON.stringify(join(process.cwd(), "src/signing/data-dir-key-store.ts"))};
        while (Date.now() < ${startAt});
        try { process.stdout.write(rotateDataDirKey(${JSON.stringify(store)}).activeKid); } catch (e) { process.stdout.write("refused: " + e.message); }`;
      const outputs = (await Promise.all(Array.from({ length: 3 }, () => run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script])))).map((r) => r.stdout);
      const rotated = outputs.filter((o) => !o.startsWith("refused"));
      expect(rotated.length).toBeGreaterThan(0);
      for (const o of outputs.filter((x) => x.startsWith("refused"))) expect(o).toMatch(/another signing command \(pid (\d+|unknown)\) is changing/);
      const published = readKeyManifest(store).keys.map((k) => k.kid);
      for (const kid of rotated) expect(published).toContain(kid);
      // No private key is left that the manifest does not publish.
      const active = readKeyManifest(store).keys.find((k) => k.status === "active")!.kid;
      expect(readdirSync(store).filter((f) => f.endsWith(".key.pem"))).toEqual([`${active}.key.pem`]);
      expect(existsSync(join(store, "keys.json.lock"))).toBe(false);
    }
    // Twelve tsx processes started and spinning on two cores beside the rest of the suite: one run
    // under load took over 60 s.
  }, 180_000);

  it("refuses while a lock is held, saying when its owner no longer runs and which file to remove", async () => {
    const store = join(dir, "signing");
    openDataDirKeyRing(store);
    const lock = join(store, "keys.json.lock");
    const { stdout: gone } = await run(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    writeFileSync(lock, gone);
    expect(() => rotateDataDirKey(store)).toThrow(`${lock} is held by pid ${gone}, which no longer runs (a signing command was killed): if no other signing command is running, remove ${lock}`);
    writeFileSync(lock, String(process.pid));
    expect(() => rotateDataDirKey(store)).toThrow(`another signing command (pid ${process.pid}) is changing`);
    expect(() => retireDataDirKey(store, readKeyManifest(store).keys[0]!.kid)).toThrow("another signing command");
    rmSync(lock);
    const before = readKeyManifest(store).keys[0]!.kid;
    expect(rotateDataDirKey(store).retiringKid).toBe(before);
    expect(readdirSync(store).filter((f) => f.includes("lock"))).toEqual([]);
  });

  it("names why a manifest cannot be read: missing, unreadable, or not JSON", () => {
    expect(() => readKeyManifest(join(dir, "none"))).toThrow(/keys\.json does not exist/);
    writeFileSync(join(dir, "a-file"), "x");
    expect(() => readKeyManifest(join(dir, "a-file"))).toThrow(/keys\.json cannot be read \(ENOTDIR\)/);
    writeFileSync(join(dir, "keys.json"), "{ half");
    expect(() => readKeyManifest(dir)).toThrow(/keys\.json is not valid JSON/);
  });

  it("refuses a private key others can read, and a manifest without one active key", async () => {
    const store = join(dir, "signing");
    const ring = openDataDirKeyRing(store);
    const keyFile = join(store, `${ring.signer.keyId}.key.pem`);
    chmodSync(keyFile, 0o644);
    expect(() => openDataDirKeyRing(store)).toThrow(`${keyFile} is readable by other users; run: chmod 600 ${keyFile}`);
    chmodSync(keyFile, 0o600);
    const manifest = readKeyManifest(store);
    writeFileSync(join(store, "keys.json"), JSON.stringify({ ...manifest, keys: manifest.keys.map((k) => ({ ...k, status: "retiring" })) }));
    expect(() => openDataDirKeyRing(store)).toThrow("must list exactly one active key");
  });
});

describe("readSigningConfig", () => {
  const pkcs8 = (type: "ed25519" | "rsa") =>
    (type === "rsa" ? generateKeyPairSync("rsa", { modulusLength: 1024 }) : generateKeyPairSync("ed25519")).privateKey
      .export({ format: "pem", type: "pkcs8" })
      .toString();

  it("defaults to DATA_DIR/signing", async () => {
    expect(readSigningConfig({}, { dataDir: "/srv/data" })).toEqual({ source: "data-dir", dir: "/srv/data/signing" });
  });

  it("rejects ambiguous or incomplete settings with the variable's name", async () => {
    expect(() => readSigningConfig({ SIGNING_KEY_FILE: "/k.pem", SIGNING_KEY: pkcs8("ed25519") }, { dataDir: dir })).toThrow(
      new SigningConfigError("set SIGNING_KEY_FILE or SIGNING_KEY, not both"),
    );
    expect(() => readSigningConfig({ SIGNING_RETIRING_KEYS_FILE: "/old.pem" }, { dataDir: dir })).toThrow(/SIGNING_RETIRING_KEYS_FILE needs SIGNING_KEY_FILE or SIGNING_KEY/);
    expect(() => readSigningConfig({ SIGNING_KEY_FILE: " " }, { dataDir: dir })).toThrow("SIGNING_KEY_FILE is set but empty");
    expect(() => readSigningConfig({ SIGNING_KEY: pkcs8("rsa") }, { dataDir: dir })).toThrow("SIGNING_KEY holds a rsa key; response signing needs Ed25519");
  });

  it("never echoes a bad SIGNING_KEY, and readConfig reports it as a ConfigError", async () => {
    const secret = "-----BEGIN PRIVATE KEY-----\nTOP-SECRET-MATERIAL\n-----END PRIVATE KEY-----";
    let caught: unknown;
    try {
      readConfig({ SIGNING_KEY: secret });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toBe('SIGNING_KEY is not a PEM private key (expected "-----BEGIN PRIVATE KEY-----", PKCS#8)');
    expect(() => readSigningConfig({ SIGNING_KEY: "TOP-SECRET-MATERIAL" }, { dataDir: dir })).toThrow(/^SIGNING_KEY must be a PKCS#8 PEM/);
    expect(String((caught as Error).stack)).not.toContain("TOP-SECRET");
  });

  it("loads SIGNING_KEY (also with literal \\n) and publishes SIGNING_RETIRING_KEYS_FILE as retiring; the key never prints", async () => {
    const pem = pkcs8("ed25519");
    const old = generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString();
    const retiringFile = join(dir, "retiring.pem");
    writeFileSync(retiringFile, old);
    const config = readSigningConfig({ SIGNING_KEY: pem.replace(/\n/g, "\\n"), SIGNING_RETIRING_KEYS_FILE: retiringFile }, { dataDir: dir });
    const ring = loadSigningKeyRing(config);
    expect(ring.publishedKeys.map((k) => k.status)).toEqual(["active", "retiring"]);
    const body = pem.split("\n")[1]!;
    for (const printed of [JSON.stringify(config), inspect(config, { depth: 10 }), inspect(ring, { depth: 10 }), JSON.stringify(ring)]) {
      expect(printed).not.toContain(body);
    }
    expect(existsSync(join(dir, "signing"))).toBe(false);
  });

  it("warns of a SIGNING_KEY_FILE other users can read, and only then", () => {
    const file = join(dir, "shared.pem");
    writeFileSync(file, pkcs8("ed25519"), { mode: 0o600 });
    const config = readSigningConfig({ SIGNING_KEY_FILE: file }, { dataDir: dir });
    expect(signingKeyFileWarning(config)).toBeUndefined();
    chmodSync(file, 0o644);
    expect(signingKeyFileWarning(config)).toBe(`SIGNING_KEY_FILE ${file} is readable by other users (mode 644); chmod 600 it or mount it with mode 0400`);
    expect(loadSigningKeyRing(config).publishedKeys).toHaveLength(1);
    expect(signingKeyFileWarning(readSigningConfig({}, { dataDir: dir }))).toBeUndefined();
  });

  it("warns of a DATA_DIR key on a shared DATABASE_URL (replicas that may each sign with their own), and only then", () => {
    const dataDirKey = readSigningConfig({}, { dataDir: dir });
    const file = join(dir, "replicas.pem");
    writeFileSync(file, pkcs8("ed25519"), { mode: 0o600 });
    expect(dataDirKeyWithDatabaseWarning({ databaseUrl: "postgres://db/moderation", signing: dataDirKey })).toBe(
      `signing key from ${join(dir, "signing")} (no SIGNING_KEY_FILE) while DATABASE_URL is set: if this is one of several replicas ` +
        "with their own DATA_DIR, each signs with a key the others do not publish; give every replica the same SIGNING_KEY_FILE (docs/signing.md)",
    );
    expect(dataDirKeyWithDatabaseWarning({ databaseUrl: undefined, signing: dataDirKey })).toBeUndefined();
    expect(dataDirKeyWithDatabaseWarning({ databaseUrl: "postgres://db/moderation", signing: readSigningConfig({ SIGNING_KEY_FILE: file }, { dataDir: dir }) })).toBeUndefined();
  });

  it("loads SIGNING_KEY_FILE and names the file when it is missing", async () => {
    const file = join(dir, "active.pem");
    writeFileSync(file, pkcs8("ed25519"), { mode: 0o600 });
    expect(loadSigningKeyRing(readSigningConfig({ SIGNING_KEY_FILE: file }, { dataDir: dir })).publishedKeys).toHaveLength(1);
    expect(() => loadSigningKeyRing(readSigningConfig({ SIGNING_KEY_FILE: join(dir, "nope.pem") }, { dataDir: dir }))).toThrow(
      new ConfigError(`SIGNING_KEY_FILE: cannot read ${join(dir, "nope.pem")} (ENOENT)`),
    );
    // An encrypted key says so, rather than "not a PEM private key".
    const encrypted = join(dir, "encrypted.pem");
    writeFileSync(encrypted, generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "pw" }).toString());
    expect(() => loadSigningKeyRing(readSigningConfig({ SIGNING_KEY_FILE: encrypted }, { dataDir: dir }))).toThrow(
      `SIGNING_KEY_FILE ${encrypted} is an encrypted private key; give it unencrypted ("-----BEGIN PRIVATE KEY-----", PKCS#8) and protect the file instead`,
    );
  });
});
