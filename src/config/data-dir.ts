import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "./config.js";

/**
 * DATA_DIR made (0700) or found, and writable: the store, the signing keys and the usage journal
 * live there. A file in its place used to stop the start with a bare EEXIST or ENOTDIR.
 */
export function usableDataDir(dir: string): void {
  try {
    makeDirectories(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError(`DATA_DIR ${dir} must be a directory this user can write (${code}).`);
  }
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdirSync spun at full CPU for good under a
 * directory that refuses new entries without saying so (DATA_DIR=/proc/nope).
 */
function makeDirectories(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  while (!fs.existsSync(at)) {
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (missing.length === 0 && !fs.statSync(at).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: "EEXIST" });
  for (const level of missing) fs.mkdirSync(level, { mode: 0o700 });
}
