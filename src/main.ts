import { createAppContext } from "./app/app-context.js";
import { startServer } from "./edge/server.js";
import { createLogger } from "./base/logger.js";
import { ConfigError, readConfig } from "./config/config.js";
import { usableDataDir } from "./config/data-dir.js";
import { SigningKeyError } from "./signing/ed25519-keys.js";
import { isPostgresSettingRefused } from "./storage/storage-errors.js";
import { NewerSchemaError } from "./storage/migrate.js";

/**
 * A start-up whose every promise waits on something that will never come (pg once threw a bad port
 * inside its connect, and the promise it owed was never settled) lets the event loop empty, and
 * Node exits 0 in silence, which a process manager reads as a clean stop. Until the service
 * listens, an empty loop is a failed start.
 */
function exitIfStartUpStalls(): () => void {
  const stalled = () => {
    process.stderr.write("failed to start: start-up stopped without an error, with nothing left to wait for\n");
    process.exit(1);
  };
  process.on("beforeExit", stalled);
  return () => process.off("beforeExit", stalled);
}

/** Entry point: read the config, build the context, listen, and shut down cleanly on a signal. */
async function main(): Promise<void> {
  const startUpDone = exitIfStartUpStalls();
  let config;
  try {
    config = readConfig(process.env);
    usableDataDir(config.dataDir);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  let ctx;
  try {
    ctx = await createAppContext(config, { log });
  } catch (error) {
    // A signing key file that cannot be read or is not an Ed25519 key is a bad setting too, as is a
    // store that refuses the connection's settings (REDIS_URL's database index).
    if (error instanceof SigningKeyError || error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}
`);
      process.exit(2);
    }
    if (error instanceof NewerSchemaError) {
      process.stderr.write(`storage error: ${error.message}\n`);
      process.exit(2);
    }
    // PostgreSQL's own message names the user or database, never the password.
    if (isPostgresSettingRefused(error)) {
      process.stderr.write(`configuration error: DATABASE_URL: PostgreSQL refused the connection: ${(error as Error).message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let server;
  try {
    server = await startServer(ctx);
  } catch (error) {
    // Release the store and workers before exiting, e.g. when a port is taken.
    await ctx.close();
    const code = (error as NodeJS.ErrnoException).code;
    // Not EAI_AGAIN: a name server that did not answer says nothing about the setting.
    if (code === "ENOTFOUND" || code === "EADDRNOTAVAIL") {
      process.stderr.write(`configuration error: HOST "${config.host}" is not an address of this machine to listen on (${code}).\n`);
      process.exit(2);
    }
    // A port another process holds (or one this user may not bind) is a setting to change: name it.
    if (code === "EADDRINUSE" || code === "EACCES") {
      const port = (error as { port?: number }).port;
      const names = ([["PORT", config.port], ["GRPC_PORT", config.grpcPort], ["METRICS_PORT", config.metricsPort]] as const).filter(([, value]) => value === port).map(([name]) => name);
      const why = code === "EADDRINUSE" ? "is in use by another process" : "may not be bound by this user";
      process.stderr.write(`configuration error: ${names.length > 0 ? names.join(" and ") : "a port"} ${port ?? ""} on ${config.host} ${why} (${code}).\n`);
      process.exit(2);
    }
    throw error;
  }
  // npm start execs node, so a process manager's SIGTERM (or npm's forwarded one) lands here.
  // Set before the "listening" line: a script that stops the service as soon as it reads the
  // line must not find Node's default action (death by the signal, no drain, exit code null).
  // Ctrl-C in a terminal sends SIGINT to npm and node both: a second signal is not a reason to hurry.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    let code = 0;
    try {
      await server.close(); // in-flight requests finish, keep-alive connections close
      await ctx.close(); // buffered usage is written, store and workers released
    } catch (error) {
      log.error({ err: error }, "error while stopping");
      code = 1;
    }
    log.info({ signal, code }, "stopped");
    // The lines still buffered go out first: exiting at once dropped a chunk (16 request lines of
    // 872) whenever a slow reader of a piped stdout had the last write waiting (found by an audit).
    // Bounded, so a reader that never drains cannot hold the exit.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LOG_FLUSH_AT_EXIT_MS);
      log.flush(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    process.exit(code);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  // The log is written asynchronously: let its lines so far (e.g. "listening", with the pid) come first.
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  // METRICS_PORT=0 picks a free port: this line is the one place a script can read it from.
  const metrics = server.metricsUrl ? `  metrics ${server.metricsUrl}/metrics` : "";
  process.stdout.write(`moderation service listening: HTTP/1.1 ${server.httpUrl}  gRPC (h2c) ${server.grpcUrl}${metrics}\n`);
  startUpDone();
}

/** How long the exit waits for the log's buffered lines to be written. */
const LOG_FLUSH_AT_EXIT_MS = 5_000;

main().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
