import type { Database } from "../database.js";

/** A schema change, applied once, in id order. Ids start with a timestamp so they sort by age. */
export interface Migration {
  id: string;
  /** Statements in the common subset of SQLite and PostgreSQL. */
  statements: string[];
  /**
   * A change to rows that the common SQL subset cannot write (SQLite has no Unicode
   * normalisation), run after the statements in the same transaction.
   */
  rewriteRows?: (tx: Database) => Promise<void>;
}
