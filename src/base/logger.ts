import { pino, type DestinationStream } from "pino";

/** The logging surface the app uses; a pino logger satisfies it. */
export interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  /** Whether a line at this level would be written (a pino logger has it); without it, every level is. */
  isLevelEnabled?(level: "error" | "warn" | "info" | "debug"): boolean;
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * Never logged, in an object that reaches the logger or up to two levels inside it: API keys,
 * passwords, private keys, request bodies and texts. Redaction runs on every line and costs in
 * proportion to these paths, so the request log (src/observability/request-hooks.ts), which names
 * its fields one by one and carries none of these, writes through requestLogger() without it.
 */
const SECRET_FIELDS = ["password", "privateKey", "apiKey", "key", "text", "body"];
// pino matches a path at its own depth only: each field at the top, one and two levels down
// ({ password }, { err: { password } }, { err: { cause: { password } } }).
const REDACT = [
  "req.headers[\"x-api-key\"]", "headers[\"x-api-key\"]",
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
];

/**
 * The process logger: JSON lines on stdout at LOG_LEVEL. Tests pass their own destination.
 */
export function createLogger(level: string, destination: DestinationStream = bufferedDestination(1)) {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: { pid: process.pid } }, destination);
}

/**
 * Lines are buffered and written 4 kB at a time, and at least once a second, asynchronously:
 * a write per line cost a system call and a thread-pool round trip per request (the largest
 * part of the request log's cost, measured with bench/observability.ts). Flushed on exit, so
 * only a hard kill can lose the last second of lines.
 *
 * The lines gather here, in an array joined once per 4 kB, not in pino's destination
 * (sonic-boom): its own buffering measures the byte length of everything buffered at each
 * write, so with a 4 kB minimum a line cost about 2.9 µs against 1.3 µs for a sync write of
 * its own (to /dev/null), and more the bigger the buffer.
 */
export function bufferedDestination(dest: number | string): DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void } {
  // minLength above 0 only so that flush(cb) waits for the write: each chunk goes out at once.
  const stream = pino.destination({ dest, sync: false, minLength: 1 });
  let lines: string[] = [];
  let size = 0;
  const drain = () => {
    if (lines.length === 0 || (stream as unknown as { destroyed: boolean }).destroyed) return;
    const chunk = lines.length === 1 ? lines[0]! : lines.join("");
    lines = [];
    size = 0;
    stream.write(chunk);
  };
  // (A destroyed stream throws: the process is ending and there is nothing to write.)
  setInterval(drain, 1000).unref();
  pendingLines.add(drain);
  return {
    write(line: string) {
      lines.push(line);
      size += line.length;
      if (size >= CHUNK_CHARS) drain();
    },
    flush(cb?: (err?: Error) => void) {
      drain();
      stream.flush(cb);
    },
    flushSync() {
      drain();
      stream.flushSync();
    },
  };
}

const CHUNK_CHARS = 4096;
/** Every buffered destination's drain, run before pino flushes its destinations at exit (and on beforeExit, where it ends them). */
const pendingLines = new Set<() => void>();
const drainAll = () => {
  for (const drain of pendingLines) drain();
};
process.prependListener("beforeExit", drainAll);
process.prependListener("exit", drainAll);

/** The logger for per-request lines: a child of a pino logger without its redaction (see REDACT). */
export function requestLogger(log: Logger): Logger {
  return isPino(log) ? log.child({}, { redact: { paths: [] } }) : log;
}

function isPino(log: Logger): log is pino.Logger {
  return typeof (log as Partial<pino.Logger>).child === "function" && typeof (log as Partial<pino.Logger>).levelVal === "number";
}
