import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { execWhileBusy } from "./sqlite-database.js";

/** `out` already exists: a backup never replaces a file (it may be the only good copy). */
export class BackupExistsError extends Error {
  override name = "BackupExistsError";
  constructor(readonly file: string) {
    super(`${file} exists; refusing to overwrite it`);
  }
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
}

/**
 * A consistent copy of the SQLite store at `storeFile`, taken while servers write to it: SQLite's
 * online backup API, not a file copy, which in WAL mode can pair the main file with a -wal from
 * another moment (a torn copy). The copy is written to a private temporary file beside `out`,
 * checked (`PRAGMA integrity_check`, see checkIntegrity), and only then linked to `out`, which must not exist: an
 * interrupted backup leaves no half-written file under the name an operator would restore.
 */
export async function backupSqlite(storeFile: string, out: string, busyTimeoutMs: number): Promise<BackupResult> {
  if (fs.existsSync(out)) throw new BackupExistsError(out);
  const partial = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.partial`);
  // The copy holds key and password hashes: 0600 like the store, created before SQLite opens it.
  fs.closeSync(fs.openSync(partial, "wx", 0o600));
  try {
    const source = new BetterSqlite3(storeFile, { fileMustExist: true });
    let pages = 0;
    try {
      execWhileBusy(source, `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`, busyTimeoutMs);
      // All remaining pages in one step: between steps a server's write (a usage flush every
      // second) restarts the backup, so a large store copied 100 pages a turn might never finish.
      const done = await source.backup(partial, { progress: ({ totalPages }) => totalPages });
      pages = done.totalPages;
    } finally {
      source.close();
    }
    checkIntegrity(partial);
    linkWithoutOverwrite(partial, out);
    return { file: out, bytes: fs.statSync(out).size, pages };
  } finally {
    fs.rmSync(partial, { force: true });
  }
}

/**
 * Also takes the copy out of WAL mode (the backup copies the store's header, WAL flag included):
 * a one-file archive that a read-only open (sqlite3 -readonly, a restore check) uses without
 * leaving -wal and -shm files beside it. A server that opens it again turns WAL back on.
 */
function checkIntegrity(file: string): void {
  const copy = new BetterSqlite3(file, { fileMustExist: true });
  try {
    copy.exec("PRAGMA journal_mode = DELETE");
    const result = copy.prepare("PRAGMA integrity_check").pluck().all() as string[];
    if (result.length !== 1 || result[0] !== "ok") throw new Error(`the backup failed its integrity check: ${result.slice(0, 5).join("; ")}`);
  } finally {
    copy.close();
  }
}

/** link(2) fails with EEXIST rather than replace; a file system without hard links gets an exclusive copy. */
function linkWithoutOverwrite(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new BackupExistsError(to);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw error;
    try {
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === "EEXIST") throw new BackupExistsError(to);
      throw copyError;
    }
  }
}
