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
 * keys, request bodies and texts. The request log (src/observability/request-log.ts) names its
 * fields one by one and carries none of these; this is the net under it.
 */
const REDACT = [
  "req.headers[\"x-api-key\"]", "headers[\"x-api-key\"]", "*.password", "*.privateKey", "*.apiKey", "*.key", "*.text", "*.body",
];

/**
 * The process logger: JSON lines on stdout at LOG_LEVEL. Writes are asynchronous (lines that
 * arrive while a write is in flight go out together, so a busy server does not pay a system
 * call per request) and flushed when the process exits. Tests pass their own destination.
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination({ dest: 1, sync: false })) {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: { pid: process.pid } }, destination);
}
