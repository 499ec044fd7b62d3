import type { KeyObject } from "node:crypto";
import { join } from "node:path";
import { parsePrivateKeyPem, SigningKeyError } from "./ed25519-keys.js";

/**
 * Where the signing keys come from. Either the embedded store under DATA_DIR/signing
 * (generated on first start, rotated with `modctl signing rotate`), or keys handed in by
 * the operator: the active private key (SIGNING_KEY_FILE or SIGNING_KEY) plus, optionally,
 * public keys published before they sign (SIGNING_NEXT_KEYS_FILE) and after (SIGNING_RETIRING_KEYS_FILE).
 */
export type SigningConfig =
  | { source: "data-dir"; dir: string }
  | {
      source: "env";
      /** A path, or the key already parsed: a KeyObject prints as "{}", so the config is safe to log. */
      privateKey: { file: string } | { key: KeyObject };
      nextKeysFile?: string;
      retiringKeysFile?: string;
    };

export class SigningConfigError extends Error {
  override readonly name = "SigningConfigError";
}

/**
 * Reads the signing env vars from a plain object. Errors name the variable but never
 * echo its value: a mistyped SIGNING_KEY is still a secret.
 */
export function readSigningConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: { dataDir: string; toError?: (message: string) => Error },
): SigningConfig {
  try {
    return read(env, options.dataDir);
  } catch (error) {
    // The caller's config error type, so start-up reports it like any other bad variable.
    if (error instanceof SigningConfigError && options.toError) throw options.toError(error.message);
    throw error;
  }
}

function read(env: Readonly<Record<string, string | undefined>>, dataDir: string): SigningConfig {
  const file = nonEmpty(env, "SIGNING_KEY_FILE");
  const inline = nonEmpty(env, "SIGNING_KEY");
  const nextKeysFile = nonEmpty(env, "SIGNING_NEXT_KEYS_FILE");
  const retiringKeysFile = nonEmpty(env, "SIGNING_RETIRING_KEYS_FILE");

  if (file !== undefined && inline !== undefined) {
    throw new SigningConfigError("set SIGNING_KEY_FILE or SIGNING_KEY, not both");
  }
  if (file === undefined && inline === undefined) {
    if (retiringKeysFile !== undefined) {
      throw new SigningConfigError(
        "SIGNING_RETIRING_KEYS_FILE needs SIGNING_KEY_FILE or SIGNING_KEY; the DATA_DIR key store keeps its own retiring keys",
      );
    }
    if (nextKeysFile !== undefined) {
      // The store needs none: every replica on it publishes a rotated-in key at once.
      throw new SigningConfigError("SIGNING_NEXT_KEYS_FILE needs SIGNING_KEY_FILE or SIGNING_KEY; the DATA_DIR key store publishes a new key itself");
    }
    return { source: "data-dir", dir: join(dataDir, "signing") };
  }
  const privateKey = file !== undefined ? { file } : { key: parseInlineKey(inline ?? "") };
  return {
    source: "env",
    privateKey,
    ...(nextKeysFile === undefined ? {} : { nextKeysFile }),
    ...(retiringKeysFile === undefined ? {} : { retiringKeysFile }),
  };
}

function parseInlineKey(pem: string): KeyObject {
  // Container secrets are often passed with literal "\n"; accept both forms.
  const normalized = pem.includes("\\n") && !pem.includes("\n") ? pem.replace(/\\n/g, "\n") : pem;
  // An encrypted key was told "for a path use SIGNING_KEY_FILE", as if it were no key at all.
  if (normalized.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
    throw new SigningConfigError('SIGNING_KEY is an encrypted private key; give it unencrypted ("-----BEGIN PRIVATE KEY-----", PKCS#8): the service has no passphrase to give');
  }
  if (!normalized.includes("-----BEGIN PRIVATE KEY-----")) {
    throw new SigningConfigError('SIGNING_KEY must be a PKCS#8 PEM Ed25519 key ("-----BEGIN PRIVATE KEY-----"); for a path use SIGNING_KEY_FILE');
  }
  try {
    return parsePrivateKeyPem(normalized, "SIGNING_KEY");
  } catch (error) {
    if (error instanceof SigningKeyError) throw new SigningConfigError(error.message);
    throw error;
  }
}

/**
 * The value trimmed, as every other variable is: " /run/secrets/ed.pem " was looked for with its
 * spaces (ENOENT), and a PEM with a space before "-----BEGIN" was refused.
 */
function nonEmpty(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  if (value === undefined) return undefined;
  if (value === "") throw new SigningConfigError(`${name} is set but empty`);
  return value;
}
