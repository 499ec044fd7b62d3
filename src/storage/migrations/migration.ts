/** A schema change, applied once, in id order. Ids start with a timestamp so they sort by age. */
export interface Migration {
  id: string;
  /** Statements in the common subset of SQLite and PostgreSQL. */
  statements: string[];
}
