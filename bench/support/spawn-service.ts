import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { openDatabase } from "../../src/storage/open-database.js";

/** Finds a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * CPU time (user + system, all threads) a child process has used so far, in microseconds,
 * read from /proc (Linux); with `thread`, that thread's only (the main thread's id is the pid).
 * Per-request CPU is steadier than throughput on a shared 2-core box.
 */
export async function cpuMicros(pid: number, thread?: number): Promise<number> {
  const stat = await fs.readFile(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks / CLOCK_TICKS_PER_SECOND) * 1e6;
}

// USER_HZ is 100 on every mainstream Linux build.
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Node flags of `npm start` (package.json). A larger young generation: each request leaves a
 * few kilobytes of short-lived objects, and fewer scavenges measured about 4% more throughput.
 */
const START_FLAGS = ["--max-semi-space-size=32"];

/**
 * Starts `<entry>` as a child the way npm start runs the service (src/boot/ts-loader.mjs) and
 * waits until `readyUrl` answers; `cwd` runs another checkout's code (a paired baseline), `nodeFlags`
 * adds flags such as --cpu-prof.
 */
export async function spawnNode(
  entry: string,
  env: Record<string, string>,
  readyUrl: string,
  options: { cwd?: string | undefined; nodeFlags?: string[] } = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...START_FLAGS, ...(options.nodeFlags ?? []), "--import", "./src/boot/ts-loader.mjs", entry], {
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Generous: start-up (image model included) takes far longer on a loaded machine.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
    try {
      const response = await fetch(readyUrl);
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${entry} did not become ready at ${readyUrl}`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A fresh DATA_DIR holding an enterprise account whose limit the benchmark cannot reach (we measure
 * the path, not the 429s), and that account's key: what a benchmarked service is started on.
 */
const run = promisify(execFile);

export async function benchDataDir(prefix: string, checkout?: string): Promise<{ dataDir: string; key: string }> {
  const { dataDir, keys } = await benchAccounts(prefix, ["bench"], checkout);
  return { dataDir, key: keys[0]! };
}

/**
 * A fresh DATA_DIR with one enterprise account and key per name. Another checkout's service
 * (BENCH_BASELINE) gets a store its own modctl made: one made by this checkout's newer migrations
 * is refused by an older service (exit 2).
 */
export async function benchAccounts(prefix: string, names: readonly string[], checkout?: string): Promise<{ dataDir: string; keys: string[] }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const keys: string[] = [];
  if (checkout) {
    for (const name of names) keys.push(await keyMadeBy(checkout, dataDir, name));
    return { dataDir, keys };
  }
  const db = await openDatabase({ databaseUrl: undefined, dataDir });
  try {
    const accounts = createAccountStore(db);
    for (const name of names) {
      const account = await accounts.createAccount({ email: `bench-${name}-${Date.now()}@example.test`, plan: "enterprise", rpm: 100_000_000 });
      keys.push((await accounts.createKey(account.id, name)).key);
    }
    return { dataDir, keys };
  } finally {
    await db.close();
  }
}

/** An enterprise account and key in `dataDir`, made by `checkout`'s own modctl. */
async function keyMadeBy(checkout: string, dataDir: string, name: string): Promise<string> {
  const modctl = async (args: string[]) => {
    const { stdout } = await run(process.execPath, ["bin/modctl.mjs", ...args], { cwd: checkout, env: { ...process.env, DATA_DIR: dataDir } });
    return JSON.parse(stdout) as { id: string; key: string };
  };
  const account = await modctl(["account", "create", "--email", `bench-${name}-${Date.now()}@example.test`, "--plan", "enterprise", "--rpm", "100000000"]);
  return (await modctl(["key", "create", "--account", account.id, "--name", name])).key;
}
