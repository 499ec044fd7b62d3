/** The logging surface the app uses; fastify's pino logger satisfies it. */
export interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
