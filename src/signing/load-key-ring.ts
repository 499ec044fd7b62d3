import type { KeyObject } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "../base/env-values.js";
import { openDataDirKeyRing, type KeyStoreOptions } from "./data-dir-key-store.js";
import { parsePrivateKeyPem, parsePublicKeyPems, SigningKeyError } from "./ed25519-keys.js";
import { createKeyRing, type SigningKeyRing } from "./key-ring.js";
import type { SigningConfig } from "./read-signing-config.js";

/** Builds the key ring the server signs with; creates the DATA_DIR store on first start. */
export function loadSigningKeyRing(config: SigningConfig, options: KeyStoreOptions = {}): SigningKeyRing {
  if (config.source === "data-dir") return openDataDirKeyRing(config.dir, options);
  try {
    return loadOperatorKeys(config);
  } catch (error) {
    // Keys the operator handed in are settings: a bad one stops the server and modctl alike with
    // exit 2, where a damaged DATA_DIR store is a failure (exit 1 in modctl).
    if (error instanceof SigningKeyError) throw new ConfigError(error.message);
    throw error;
  }
}

/**
 * Why SIGNING_KEY_FILE deserves a warning at start-up, if it does: a private key other users can
 * read. Not refused as the DATA_DIR store's key is, since secrets mounted by Kubernetes (0644) and
 * Docker (0444) are readable by all unless the operator says otherwise.
 */
export function signingKeyFileWarning(config: SigningConfig): string | undefined {
  if (config.source !== "env" || !("file" in config.privateKey)) return undefined;
  const path = config.privateKey.file;
  const mode = statSync(path, { throwIfNoEntry: false })?.mode;
  if (mode === undefined || (mode & 0o044) === 0) return undefined;
  return `SIGNING_KEY_FILE ${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); chmod 600 it or mount it with mode 0400`;
}

/**
 * Why the DATA_DIR key deserves a warning at start-up, if it does: replicas on one database that
 * each keep their own DATA_DIR each sign with their own key, which the others' JWKS do not list.
 * Replicas sharing one DATA_DIR share its key, hence "if": one process cannot tell which it is.
 */
export function dataDirKeyWithDatabaseWarning(config: { databaseUrl: string | undefined; signing: SigningConfig }): string | undefined {
  if (config.databaseUrl === undefined || config.signing.source !== "data-dir") return undefined;
  return (
    `signing key from ${config.signing.dir} (no SIGNING_KEY_FILE) while DATABASE_URL is set: if this is one of several replicas ` +
    "with their own DATA_DIR, each signs with a key the others do not publish; give every replica the same SIGNING_KEY_FILE (docs/signing.md)"
  );
}

function loadOperatorKeys(config: Extract<SigningConfig, { source: "env" }>): SigningKeyRing {
  let active;
  if ("file" in config.privateKey) {
    const path = config.privateKey.file;
    const pem = readText(path, "SIGNING_KEY_FILE");
    // The file's age is the best creation time we have for an operator-supplied key.
    active = { privateKey: parsePrivateKeyPem(pem, `SIGNING_KEY_FILE ${path}`), createdAt: Math.floor(statSync(path).mtimeMs / 1000) };
  } else {
    active = { privateKey: config.privateKey.key, createdAt: 0 };
  }
  const next = publicKeysIn(config.nextKeysFile, "SIGNING_NEXT_KEYS_FILE");
  const retiring = publicKeysIn(config.retiringKeysFile, "SIGNING_RETIRING_KEYS_FILE");
  return createKeyRing({ active, next, retiring });
}

function publicKeysIn(path: string | undefined, envName: string): { publicKey: KeyObject; createdAt: number }[] {
  if (path === undefined) return [];
  return parsePublicKeyPems(readText(path, envName), `${envName} ${path}`).map((publicKey) => ({ publicKey, createdAt: 0 }));
}

function readText(path: string, envName: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new SigningKeyError(`${envName}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
