import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * Which processes sign with which key of a shared DATA_DIR store, so that `modctl signing retire`
 * can refuse to unpublish a key a replica not yet restarted still signs with (its answers would
 * then fail against every other replica's JWKS). Each server keeps one file, DIR/in-use/<host>.<pid>.json,
 * touched every REFRESH_MS and removed when it exits; a file not touched for STALE_MS (a process
 * killed, a host gone) no longer counts.
 */
const IN_USE = "in-use";
export const REFRESH_MS = 30_000;
export const STALE_MS = 120_000;

export interface KeySigner {
  kid: string;
  host: string;
  pid: number;
  /** How long ago the file was last touched, in milliseconds. */
  seenMsAgo: number;
}

const marked = new Set<string>();
let timer: NodeJS.Timeout | undefined;

/** Records that this process signs with `kid` from the store at `dir`; never fails the start. */
export function markKeyInUse(dir: string, kid: string): void {
  const path = join(dir, IN_USE, `${safe(hostname())}.${process.pid}.json`);
  try {
    mkdirSync(join(dir, IN_USE), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify({ kid, host: hostname(), pid: process.pid })}\n`, { mode: 0o600 });
  } catch {
    // A read-only store still signs: retire then cannot see this process (docs/signing.md says so).
    return;
  }
  marked.add(path);
  if (timer) return;
  timer = setInterval(refresh, REFRESH_MS).unref();
  process.once("exit", unmarkAll);
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
    const live = signer.seenMsAgo < STALE_MS && (signer.host !== hostname() || isRunning(signer.pid));
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

function refresh(): void {
  const now = new Date();
  for (const path of marked) {
    try {
      utimesSync(path, now, now);
    } catch {
      marked.delete(path); // the store was moved or removed: nothing left to keep fresh
    }
  }
}

function unmarkAll(): void {
  for (const path of marked) removeQuietly(path);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9.-]/g, "_");
}
