import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { isProcessRunning } from "../base/process-running.js";

/**
 * Which processes sign with which key of a shared DATA_DIR store, so that `modctl signing retire`
 * can refuse to unpublish a key a replica not yet restarted still signs with (its answers would
 * then fail against every other replica's JWKS). Each server keeps one file, DIR/in-use/<host>.<pid>.<run>.json,
 * touched every REFRESH_MS and removed when it exits; a file not touched for STALE_MS (a process
 * killed, a host gone) no longer counts.
 */
const IN_USE = "in-use";
const REFRESH_MS = 30_000;
export const STALE_MS = 120_000;

export interface KeySigner {
  kid: string;
  host: string;
  pid: number;
  /** How long ago the file was last touched, in milliseconds. */
  seenMsAgo: number;
}

/** Each file this process keeps fresh, and what it says. */
const marked = new Map<string, { dir: string; kid: string }>();
let timer: NodeJS.Timeout | undefined;
/**
 * In the file's name beside host and pid: containers that share a hostname (host networking) and
 * a DATA_DIR can both be pid 1, and wrote one file, each hiding the other (found by a review).
 */
const RUN = randomBytes(4).toString("hex");

/** Records that this process signs with `kid` from the store at `dir`; never fails the start. */
export function markKeyInUse(dir: string, kid: string): void {
  const path = join(dir, IN_USE, `${safe(hostname())}.${process.pid}.${RUN}.json`);
  if (!write(path, dir, kid)) return; // a read-only store still signs: retire then cannot see it (docs/signing.md)
  marked.set(path, { dir, kid });
  if (timer) return;
  timer = setInterval(refresh, REFRESH_MS).unref();
  process.once("exit", unmarkAll);
}

/**
 * Writes the file whole (a temporary name, then renamed: a half-written file read as "not
 * signing" and let a retire through); true when it is there.
 */
function write(path: string, dir: string, kid: string): boolean {
  const temporary = `${path}.${RUN}.tmp`;
  try {
    mkdirSync(join(dir, IN_USE), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${JSON.stringify({ kid, host: hostname(), pid: process.pid })}\n`, { mode: 0o600 });
    renameSync(temporary, path);
    return true;
  } catch {
    removeQuietly(temporary);
    return false;
  }
}

/** The processes that signed with `kid` recently enough to be running still; removes the files of the others. */
export function signersOf(dir: string, kid: string, now = Date.now()): KeySigner[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, IN_USE)).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  const signers: KeySigner[] = [];
  for (const name of names) {
    const path = join(dir, IN_USE, name);
    const signer = readSigner(path, now);
    if (!signer) continue;
    // On this host a pid says more than a file's age (a reused pid with an old file does not count).
    const live = signer.seenMsAgo < STALE_MS && (signer.host !== hostname() || isProcessRunning(signer.pid));
    if (!live) removeQuietly(path);
    else if (signer.kid === kid) signers.push(signer);
  }
  return signers;
}

function readSigner(path: string, now: number): KeySigner | undefined {
  try {
    const { kid, host, pid } = JSON.parse(readFileSync(path, "utf8")) as Partial<KeySigner>;
    if (typeof kid !== "string" || typeof host !== "string" || typeof pid !== "number") return undefined;
    return { kid, host, pid, seenMsAgo: Math.max(0, now - statSync(path).mtimeMs) };
  } catch {
    return undefined; // half-written or just removed
  }
}

/**
 * Rewritten, not only touched: a file removed meanwhile (a retire's clean-up of one it took for
 * stale, a store restored) comes back. One failure no longer drops the file from the refresh for
 * good; a store that is gone stops being refreshed once its directory is. (The timer's job; tests call it.)
 */
export function refresh(): void {
  for (const [path, { dir, kid }] of marked) {
    if (!write(path, dir, kid) && !existsDir(dir)) marked.delete(path);
  }
}

function existsDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function unmarkAll(): void {
  for (const path of marked.keys()) removeQuietly(path);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9.-]/g, "_");
}
