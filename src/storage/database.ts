/**
 * The small SQL surface the repositories need. Two drivers implement it: embedded SQLite
 * (the default, a file under DATA_DIR) and PostgreSQL (when DATABASE_URL is set). SQL is
 * written once, in the common subset of both dialects, with $1..$n placeholders.
 */
export type SqlValue = string | number | null;

export interface Database {
  readonly dialect: "sqlite" | "postgres";
  query<Row extends Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs statements and returns the number of rows changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Runs `work` in one transaction; concurrent callers on one connection are serialised.
   * Statements of the transaction must go through `tx`, never through the outer handle.
   */
  transaction<T>(work: (tx: Database) => Promise<T>): Promise<T>;
  /**
   * Runs `work` while holding a cross-process lock (used for migrations). Statements inside
   * must go through the handle `work` receives.
   */
  withExclusiveLock<T>(work: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A cheap token that changes whenever any connection may have committed a change: at once
   * for writes in this process, within a few milliseconds for another process's (modctl).
   * Drivers that cannot tell cheaply leave it out, and callers then must not cache what they read.
   */
  changeToken?(): string;
}

/** BIGINT columns come back as strings from pg and numbers from SQLite. */
export function toNumber(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

export function toOptionalNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}
