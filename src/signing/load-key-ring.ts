import { readFileSync, statSync } from "node:fs";
import { openDataDirKeyRing, type KeyStoreOptions } from "./data-dir-key-store.js";
import { parsePrivateKeyPem, parsePublicKeyPems, SigningKeyError } from "./ed25519-keys.js";
import { createKeyRing, type SigningKeyRing } from "./key-ring.js";
import type { SigningConfig } from "./read-signing-config.js";

/** Builds the key ring the server signs with; creates the DATA_DIR store on first start. */
export function loadSigningKeyRing(config: SigningConfig, options: KeyStoreOptions = {}): SigningKeyRing {
  if (config.source === "data-dir") return openDataDirKeyRing(config.dir, options);
  let active;
  if ("file" in config.privateKey) {
    const path = config.privateKey.file;
    const pem = readText(path, "SIGNING_KEY_FILE");
    // The file's age is the best creation time we have for an operator-supplied key.
    active = { privateKey: parsePrivateKeyPem(pem, `SIGNING_KEY_FILE ${path}`), createdAt: Math.floor(statSync(path).mtimeMs / 1000) };
  } else {
    active = { privateKey: config.privateKey.key, createdAt: 0 };
  }
  const retiring =
    config.retiringKeysFile === undefined
      ? []
      : parsePublicKeyPems(readText(config.retiringKeysFile, "SIGNING_RETIRING_KEYS_FILE"), `SIGNING_RETIRING_KEYS_FILE ${config.retiringKeysFile}`).map(
          (publicKey) => ({ publicKey, createdAt: 0 }),
        );
  return createKeyRing({ active, retiring });
}

function readText(path: string, envName: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new SigningKeyError(`${envName}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
