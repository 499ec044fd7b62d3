import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createPublicKey } from "node:crypto";
import { join } from "node:path";
import { generateEd25519KeyPair, parsePrivateKeyPem, parsePublicKeyPems, publicKeyPem, SigningKeyError, toPublicJwk } from "./ed25519-keys.js";
import { createKeyRing, type PublishedSigningKey, type SigningKeyRing } from "./key-ring.js";
import type { KeyStatus } from "./jwk.js";
import { isProcessRunning } from "../base/process-running.js";
import { markKeyInUse, signersOf, type KeySigner } from "./key-in-use.js";

/**
 * The embedded default key store, for installs that set no SIGNING_KEY(_FILE):
 *   DIR/keys.json        manifest: every published public key with its status (no secrets)
 *   DIR/<kid>.key.pem    PKCS#8 private key of the active key, mode 0600
 * Only the active key's private half is kept; rotation deletes the old one.
 */
interface KeyManifest {
  version: 1;
  keys: KeyManifestEntry[];
}

interface KeyManifestEntry {
  kid: string;
  /** The store has no "next" key: every process on it publishes a rotated-in key at once. */
  status: Exclude<KeyStatus, "next">;
  createdAt: number;
  publicKeyPem: string;
}

const MANIFEST = "keys.json";

export interface KeyStoreOptions {
  /** Milliseconds since the epoch; tests pass a fixed clock. */
  now?: () => number;
  /** false for a reader that never signs (modctl signing list): it is not recorded as using the key. */
  signs?: boolean;
}

/** Loads the store, creating the directory and a first key when there is none yet. */
export function openDataDirKeyRing(dir: string, options: KeyStoreOptions = {}): SigningKeyRing {
  if (!hasKeyStore(dir)) {
    refuseUnpublishedKeys(dir);
    // Another replica may have published its first key while this one waited.
    if (!hasKeyStore(dir)) initialize(dir, options);
  }
  const ring = loadKeyRing(dir);
  if (options.signs !== false) markKeyInUse(dir, ring.signer.keyId);
  return withLivePublishedKeys(dir, ring);
}

/**
 * Throws when `dir` has no manifest but holds private keys (its keys.json was deleted): the server
 * refuses to start there, and `modctl signing list` said "no key store yet" instead.
 */
export function refuseUnpublishedKeys(dir: string): void {
  const orphans = privateKeysWithoutManifest(dir);
  if (orphans.length > 0) {
    throw new SigningKeyError(
      `${dir} holds private keys (${orphans.join(", ")}) but no ${MANIFEST}, which publishes them: restore ${MANIFEST} from a backup, ` +
      `or move the .key.pem files away to start with a new key (answers signed before will not verify against the new one)`,
    );
  }
}

/** How long a start waits for another replica that has written its first key but not yet its manifest. */
const MANIFEST_WAIT_MS = 2000;

/**
 * Private keys in a directory without a manifest: a store whose keys.json was deleted. Starting
 * there used to make a new key silently, so every verifier holding the old JWKS failed. A replica
 * starting at the same moment writes its key just before its manifest, so that is waited for.
 */
function privateKeysWithoutManifest(dir: string): string[] {
  const deadline = Date.now() + MANIFEST_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let keys: string[];
    try {
      keys = readdirSync(dir).filter((name) => name.endsWith(".key.pem"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    if (keys.length === 0 || hasKeyStore(dir)) return [];
    if (Date.now() >= deadline) return keys.sort();
    Atomics.wait(pause, 0, 0, 20); // a synchronous sleep: opening the key ring is synchronous
  }
}

/**
 * Publishes what the manifest says now, not what it said at start: after `modctl signing
 * rotate`, every running replica publishes the new key before any restarted replica signs
 * with it. The key this process signs with stays published whatever the manifest says.
 * Costs one stat() per JWKS / ListSigningKeys request.
 */
function withLivePublishedKeys(dir: string, loaded: SigningKeyRing): SigningKeyRing {
  const path = join(dir, MANIFEST);
  const own = loaded.publishedKeys[0];
  let seen = fileVersion(path);
  let published = loaded.publishedKeys;
  return {
    signer: loaded.signer,
    get publishedKeys() {
      const version = fileVersion(path);
      if (version !== seen) {
        seen = version;
        try {
          const keys = readKeyManifest(dir).keys.map(toPublished).sort((a, b) => (a.status === "active" ? -1 : b.status === "active" ? 1 : 0));
          // Retired while it still signs here: published as retiring (one key is "active").
          published = own && !keys.some((k) => k.kid === own.kid) ? [...keys, { ...own, status: "retiring" }] : keys;
        } catch (error) {
          // A broken manifest must not unpublish keys: keep the last good set.
          if (!(error instanceof SigningKeyError)) throw error;
        }
      }
      return published;
    },
  };
}

function toPublished(entry: KeyManifestEntry): PublishedSigningKey {
  const [publicKey] = parsePublicKeyPems(entry.publicKeyPem, `${MANIFEST} key ${entry.kid}`);
  if (!publicKey) throw new SigningKeyError(`${MANIFEST} key ${entry.kid} has no public key`);
  return { kid: entry.kid, x: toPublicJwk(publicKey).x, status: entry.status, createdAt: entry.createdAt };
}

/** Changes whenever the manifest is replaced (rename gives a new inode) or rewritten. */
function fileVersion(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
  } catch {
    return "missing";
  }
}

/** Whether `dir` holds a key store yet (its manifest); the server makes one on its first start. */
export function hasKeyStore(dir: string): boolean {
  return existsSync(join(dir, MANIFEST));
}

export function readKeyManifest(dir: string): KeyManifest {
  const path = join(dir, MANIFEST);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    // A read that failed (ENOTDIR, EACCES) is named as such: it was reported as "not valid JSON".
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "does not exist" : code ? `cannot be read (${code})` : "is not valid JSON";
    throw new SigningKeyError(`signing key manifest ${path} ${reason}`);
  }
  if (!isManifest(parsed)) throw new SigningKeyError(`signing key manifest ${path} is malformed`);
  const active = parsed.keys.filter((k) => k.status === "active");
  if (active.length !== 1) throw new SigningKeyError(`signing key manifest ${path} must list exactly one active key`);
  return parsed;
}

/** Makes a new active key; the previous active key becomes "retiring" and stays published. */
export function rotateDataDirKey(dir: string, options: KeyStoreOptions = {}): { activeKid: string; retiringKid: string } {
  return withManifestLock(dir, () => rotateLocked(dir, options));
}

function rotateLocked(dir: string, options: KeyStoreOptions): { activeKid: string; retiringKid: string } {
  const manifest = readKeyManifest(dir);
  const previous = manifest.keys.find((k) => k.status === "active");
  if (!previous) throw new SigningKeyError("no active key to rotate");
  const created = writeNewPrivateKey(dir, options);
  const keys: KeyManifestEntry[] = [
    created,
    { ...previous, status: "retiring" },
    ...manifest.keys.filter((k) => k !== previous),
  ];
  writeManifest(dir, { version: 1, keys });
  // Only after the manifest points at the new key may the old private key go.
  removeIfPresent(privateKeyPath(dir, previous.kid));
  return { activeKid: created.kid, retiringKid: previous.kid };
}

/**
 * Stops publishing a retiring key: responses it signed no longer verify against our JWKS. Refused
 * while a server on this store still signs with it (not restarted since the rotation), unless
 * forced: the other servers would stop publishing it while that one's answers still use it.
 * Returns the servers a forced retire went past.
 */
export function retireDataDirKey(dir: string, kid: string, options: { force?: boolean } = {}): { stillSigning: KeySigner[] } {
  return withManifestLock(dir, () => {
    const manifest = readKeyManifest(dir);
    const entry = manifest.keys.find((k) => k.kid === kid);
    if (!entry) throw new SigningKeyError(`no published key has kid ${kid}`);
    if (entry.status === "active") throw new SigningKeyError(`key ${kid} is active; rotate first, then retire it`);
    const stillSigning = signersOf(dir, kid);
    if (stillSigning.length > 0 && !options.force) {
      const who = stillSigning.map((s) => `${s.host} pid ${s.pid}`).join(", ");
      throw new SigningKeyError(
        `key ${kid} still signs on ${stillSigning.length} running server(s) (${who}): restart them so they sign with the active key, ` +
        `then retire it; --force retires it now, and their answers fail against the other servers' JWKS until they restart`,
      );
    }
    writeManifest(dir, { version: 1, keys: manifest.keys.filter((k) => k !== entry) });
    return { stillSigning };
  });
}

const LOCK = `${MANIFEST}.lock`;

/**
 * Runs a read-change-write of the manifest alone: two `modctl signing rotate` at once each read
 * the manifest and wrote their own, and one new key was lost (its private key left unpublished,
 * both commands exiting 0). The lock is a file holding its owner's pid, put in place whole by
 * link(), which fails when the lock exists. One left by a killed command is not taken over (two
 * commands taking over one stale lock could each remove the other's): the refusal names the file
 * to remove, and says when its owner no longer runs.
 */
function withManifestLock<T>(dir: string, change: () => T): T {
  const path = join(dir, LOCK);
  const mine = join(dir, `${LOCK}.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(mine, String(process.pid), { mode: 0o600 });
  if (!placeLock(mine, path)) {
    const owner = Number(readFileSafely(path));
    const gone = owner > 0 && !isProcessRunning(owner);
    throw new SigningKeyError(
      gone
        ? `${path} is held by pid ${owner}, which no longer runs (a signing command was killed): if no other signing command is running, remove ${path} and run this one again`
        : `another signing command (pid ${owner || "unknown"}) is changing ${join(dir, MANIFEST)}; run this one again when it is done (or remove ${path} if none is)`,
    );
  }
  try {
    return change();
  } finally {
    removeIfPresent(path);
  }
}

/**
 * Places the lock; where it is held but gone by the time its holder is read (that command has just
 * finished: "pid unknown", seen once in CI), tries once more rather than refuse a free lock.
 */
function placeLock(mine: string, path: string): boolean {
  if (placeUnlessPresent(mine, path)) return true;
  if (readFileSafely(path) !== "") return false;
  writeFileSync(mine, String(process.pid), { mode: 0o600 });
  return placeUnlessPresent(mine, path);
}

function readFileSafely(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function initialize(dir: string, options: KeyStoreOptions): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const created = writeNewPrivateKey(dir, options);
  // Of replicas starting together on one DATA_DIR, exactly one places the manifest (the first
  // key); the others drop theirs and load it.
  if (!placeUnlessPresent(writeTemporaryManifest(dir, { version: 1, keys: [created] }), join(dir, MANIFEST))) {
    removeIfPresent(privateKeyPath(dir, created.kid));
  }
}

/**
 * Puts the whole file `tmp` in place as `target` unless `target` exists (link() fails then, so
 * two processes never both succeed), and removes `tmp`: whether it was placed.
 */
function placeUnlessPresent(tmp: string, target: string): boolean {
  try {
    linkSync(tmp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    removeIfPresent(tmp);
  }
}

function loadKeyRing(dir: string): SigningKeyRing {
  const manifest = readKeyManifest(dir);
  const active = manifest.keys.find((k) => k.status === "active");
  if (!active) throw new SigningKeyError("no active key");
  const path = privateKeyPath(dir, active.kid);
  let pem: string;
  try {
    if (process.platform !== "win32" && (statSync(path).mode & 0o077) !== 0) {
      throw new SigningKeyError(`${path} is readable by other users; run: chmod 600 ${path}`);
    }
    pem = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    throw new SigningKeyError(`cannot read the active private key ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const privateKey = parsePrivateKeyPem(pem, path);
  if (toPublicJwk(privateKey).kid !== active.kid) throw new SigningKeyError(`${path} does not match kid ${active.kid} in ${MANIFEST}`);
  return createKeyRing({
    active: { privateKey, createdAt: active.createdAt },
    retiring: manifest.keys
      .filter((k) => k.status === "retiring")
      .map((k) => {
        const [publicKey] = parsePublicKeyPems(k.publicKeyPem, `${MANIFEST} key ${k.kid}`);
        if (!publicKey) throw new SigningKeyError(`${MANIFEST} key ${k.kid} has no public key`);
        return { publicKey, createdAt: k.createdAt };
      }),
  });
}

function writeNewPrivateKey(dir: string, options: KeyStoreOptions): KeyManifestEntry {
  const { privateKey, privateKeyPem } = generateEd25519KeyPair();
  const { kid } = toPublicJwk(privateKey);
  const path = privateKeyPath(dir, kid);
  // "wx" + 0600 at creation: the key is never readable by others, not even for an instant.
  writeFileSync(path, privateKeyPem, { mode: 0o600, flag: "wx" });
  const now = options.now ?? Date.now;
  return { kid, status: "active", createdAt: Math.floor(now() / 1000), publicKeyPem: publicKeyPem(createPublicKey(privateKey)) };
}

function writeManifest(dir: string, manifest: KeyManifest): void {
  renameSync(writeTemporaryManifest(dir, manifest), join(dir, MANIFEST));
}

function writeTemporaryManifest(dir: string, manifest: KeyManifest): string {
  const tmp = join(dir, `${MANIFEST}.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
  return tmp;
}

function privateKeyPath(dir: string, kid: string): string {
  return join(dir, `${kid}.key.pem`);
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function isManifest(value: unknown): value is KeyManifest {
  if (typeof value !== "object" || value === null) return false;
  const m = value as { version?: unknown; keys?: unknown };
  return (
    m.version === 1 &&
    Array.isArray(m.keys) &&
    m.keys.every(
      (k: unknown) =>
        typeof k === "object" &&
        k !== null &&
        typeof (k as KeyManifestEntry).kid === "string" &&
        /^[A-Za-z0-9_-]+$/.test((k as KeyManifestEntry).kid) &&
        ((k as KeyManifestEntry).status === "active" || (k as KeyManifestEntry).status === "retiring") &&
        typeof (k as KeyManifestEntry).createdAt === "number" &&
        typeof (k as KeyManifestEntry).publicKeyPem === "string",
    )
  );
}
