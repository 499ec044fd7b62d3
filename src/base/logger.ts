import { pino, type DestinationStream } from "pino";

/** The logging surface the app uses; a pino logger satisfies it. */
export interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * Never logged, whatever an object that reaches the logger holds: API keys, passwords, private
 * keys, request bodies and texts. Redaction runs on every line and costs in proportion to these
 * paths, so the request log (src/observability/request-hooks.ts), which names its fields one
 * by one and carries none of these, writes through requestLogger() without it.
 */
const REDACT = [
  "req.headers[\"x-api-key\"]", "headers[\"x-api-key\"]", "*.password", "*.privateKey", "*.apiKey", "*.key", "*.text", "*.body",
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
 */
export function bufferedDestination(dest: number | string): DestinationStream {
  const stream = pino.destination({ dest, sync: false, minLength: 4096 });
  setInterval(() => {
    // (A destroyed stream throws: the process is ending and there is nothing to write.)
    if (!(stream as unknown as { destroyed: boolean }).destroyed) stream.flush();
  }, 1000).unref();
  return stream;
}

/** The logger for per-request lines: a child of a pino logger without its redaction (see REDACT). */
export function requestLogger(log: Logger): Logger {
  return isPino(log) ? log.child({}, { redact: { paths: [] } }) : log;
}

function isPino(log: Logger): log is pino.Logger {
  return typeof (log as Partial<pino.Logger>).child === "function" && typeof (log as Partial<pino.Logger>).levelVal === "number";
}
