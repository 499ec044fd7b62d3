/**
 * A store that cannot answer now (down, silent, busy, out of connections), as opposed to a
 * query that is wrong. Callers get 503 storage_unavailable with Retry-After for it
 * (src/errors/api-error.ts), never 500: retrying later is the right thing to do.
 */
export class StorageUnavailableError extends Error {
  /** Seconds a caller should wait before retrying. */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageUnavailableError";
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
  }
}

/**
 * A text the store cannot hold: PostgreSQL's text has no U+0000 (SQLSTATE 22021; 22P05 for a
 * `\u0000` escape in jsonb), where SQLite holds it. Callers get 400 invalid_request for it
 * (src/errors/api-error.ts): the same request would fail again, and it was a 500.
 */
export class UnstorableTextError extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super("A text holds U+0000 (NUL), which the store cannot hold.", options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UnstorableTextError";
  }
}

/** Whether a PostgreSQL driver error is a parameter holding U+0000. */
export function isPostgresUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "22021" || code === "22P05";
}

/**
 * Whether an identifier a caller gave (a key id, an email) can name a stored row: none holds
 * U+0000 (ids are generated, emails refused with control characters), and PostgreSQL cannot even
 * compare such a text, so a lookup by it answers "not found" at once, as SQLite's lookup does.
 */
export const canNameStoredRow = (text: string): boolean => !text.includes("\u0000");

// Socket-level failures: the server is unreachable or the connection died.
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNABORTED"]);

// node-postgres reports these as plain Errors without a code.
const PG_CLIENT_MESSAGES = [
  "timeout exceeded when trying to connect",
  "Connection terminated",
  "Query read timeout",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Cannot use a pool after calling end on the pool",
];

/** SQLSTATEs that mean "try again later": connection exceptions, shutdowns, timeouts, resources. */
function isTransientSqlState(code: string): boolean {
  return (
    code.startsWith("08") || // connection_exception
    code.startsWith("53") || // insufficient_resources (too_many_connections, disk_full, out_of_memory)
    code.startsWith("57P") || // admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now
    code === "57014" || // query_canceled: statement_timeout fired
    code === "25P03" || // idle_in_transaction_session_timeout
    code === "40001" || // serialization_failure
    code === "40P01" || // deadlock_detected
    code === "55P03" // lock_not_available
  );
}

/** Whether a PostgreSQL driver error means the store is unavailable rather than the query wrong. */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || isTransientSqlState(code))) return true;
  return PG_CLIENT_MESSAGES.some((m) => error.message.startsWith(m));
}

/**
 * The failures that say the server itself is unreachable or silent (not one backend lost):
 * after one, further calls fail fast until a probe gets through (see postgres-database.ts).
 */
export function isPostgresUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && NETWORK_CODES.has(code) && code !== "ECONNRESET" && code !== "EPIPE") return true;
  if (code === "57P03" || code === "53300") return true; // starting up / too many connections
  return error.message.startsWith("timeout exceeded when trying to connect") || error.message.startsWith("Query read timeout")
    || error.message.startsWith("Connection terminated due to connection timeout");
}

/** A lost connection to one backend: a fresh connection may well work at once. */
export function isPostgresConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "57P01" || code === "ECONNRESET" || code === "EPIPE") return true;
  return error.message === "Connection terminated unexpectedly"
    || error.message.startsWith("Client has encountered a connection error and is not queryable");
}

// SQLite: another process holds the lock past busy_timeout, or the disk misbehaves.
const SQLITE_TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|NOMEM)/;

export function isSqliteUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && SQLITE_TRANSIENT.test(code);
}

/**
 * PostgreSQL's refusal of DATABASE_URL itself: a user it does not know or a wrong password (class
 * 28), a database that does not exist (3D000), a search_path its `options` set that names no
 * schema (3F000, met by the first migration), TLS asked of a server without it. Retrying does not
 * help; the setting must change.
 */
export function isPostgresSettingRefused(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("28") || code === "3D000" || code === "3F000")) return true;
  return error.message === "The server does not support SSL connections";
}
