import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSigningKeyRing } from "../../src/signing/load-key-ring.js";
import { readSigningConfig, SigningConfigError } from "../../src/signing/read-signing-config.js";

/** SIGNING_KEY and SIGNING_KEY_FILE as operators paste them (found by an audit of configuration). */

const dir = mkdtempSync(join(tmpdir(), "signing-config-values-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const keyPair = generateKeyPairSync("ed25519");
const pem = keyPair.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
const read = (env: Record<string, string>) => readSigningConfig(env, { dataDir: dir });

describe("readSigningConfig takes values as written around them", () => {
  it("trims SIGNING_KEY_FILE (' /path/ed.pem ' was looked for with its spaces: ENOENT)", () => {
    const file = join(dir, "ed.pem");
    writeFileSync(file, pem, { mode: 0o600 });
    const config = read({ SIGNING_KEY_FILE: ` ${file} \n` });
    expect(config).toEqual({ source: "env", privateKey: { file } });
    expect(loadSigningKeyRing(config).publishedKeys).toHaveLength(1);
  });

  it("trims SIGNING_KEY (a PEM with spaces or a line break around it was refused)", () => {
    for (const value of [`  ${pem}  `, `\n${pem}\n\n`, ` ${pem.trim().replace(/\n/g, "\\n")} `]) {
      const config = read({ SIGNING_KEY: value });
      expect(loadSigningKeyRing(config).publishedKeys).toHaveLength(1);
    }
  });

  it("trims SIGNING_RETIRING_KEYS_FILE", () => {
    const file = join(dir, "retiring.pem");
    writeFileSync(file, generateKeyPairSync("ed25519").publicKey.export({ format: "pem", type: "spki" }).toString());
    expect(read({ SIGNING_KEY: pem, SIGNING_RETIRING_KEYS_FILE: ` ${file} ` })).toMatchObject({ retiringKeysFile: file });
  });

  it("says an inline encrypted key is encrypted (it was told 'for a path use SIGNING_KEY_FILE'), never showing it", () => {
    const encrypted = keyPair.privateKey.export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: "pw" }).toString();
    for (const value of [encrypted, encrypted.trim().replace(/\n/g, "\\n")]) {
      let caught: unknown;
      try {
        read({ SIGNING_KEY: value });
      } catch (error) {
        caught = error;
      }
      expect(caught).toEqual(new SigningConfigError('SIGNING_KEY is an encrypted private key; give it unencrypted ("-----BEGIN PRIVATE KEY-----", PKCS#8): the service has no passphrase to give'));
      expect(String((caught as Error).message)).not.toContain(encrypted.split("\n")[1]);
    }
  });
});
