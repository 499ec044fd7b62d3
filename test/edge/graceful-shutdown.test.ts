import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { openDatabase } from "../../src/storage/open-database.js";

const CONNECTIONS = 16;

/**
 * The documented start command, run the way a process manager runs it: `npm start`, with
 * SIGTERM sent to npm's pid only. npm must hand the signal to the server (the script execs
 * node), the server must drain its keep-alive connections without resetting a request, log
 * "stopped", free the port and leave no process behind.
 */
function startWithNpm(env: Record<string, string>): Promise<{ npm: ChildProcess; httpUrl: string; output: () => string }> {
  const npm = spawn("npm", ["start", "--silent"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(npm);
  let out = "";
  npm.stdout!.on("data", (chunk: Buffer) => { out += chunk.toString(); });
  npm.stderr!.on("data", (chunk: Buffer) => { out += chunk.toString(); });
  return new Promise((resolve, reject) => {
    const onData = () => {
      const match = /HTTP\/1\.1 (http:\/\/\S+)/.exec(out);
      if (match) {
        npm.stdout!.off("data", onData);
        resolve({ npm, httpUrl: match[1]!, output: () => out });
      }
    };
    npm.stdout!.on("data", onData);
    npm.once("exit", (code) => reject(new Error(`npm start exited (${code}) before listening: ${out}`)));
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portRefuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once("connect", () => { socket.destroy(); resolve(false); });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

type Outcome = { status: number } | { error: string };

function post(agent: http.Agent, url: string, key: string, n: number): Promise<Outcome> {
  const body = JSON.stringify({ input: [{ type: "text", text: `keep-alive message ${n}` }] });
  return new Promise((resolve) => {
    const request = http.request(`${url}/v1/moderate`, {
      method: "POST", agent,
      headers: { "content-type": "application/json", "x-api-key": key, "content-length": Buffer.byteLength(body) },
    }, (response) => {
      response.resume();
      response.once("end", () => resolve({ status: response.statusCode! }));
      response.once("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    request.once("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end(body);
  });
}

const children: ChildProcess[] = [];
let dataDir = "";

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe("npm start under SIGTERM", () => {
  it("drains keep-alive load with no reset, logs stopped, frees the port and leaves no process", async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "shutdown-"));
    const db = await openDatabase({ databaseUrl: undefined, dataDir });
    const accounts = createAccountStore(db);
    const account = await accounts.createAccount({ email: "drain@example.test", plan: "enterprise", rpm: 1_000_000 });
    const { key } = await accounts.createKey(account.id);
    await db.close();

    const { npm, httpUrl, output } = await startWithNpm({
      PORT: "0", GRPC_PORT: "0", DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", IMAGE_WORKERS: "1", LOG_LEVEL: "info",
    });
    const serverPid = Number(/"pid":(\d+)/.exec(output())?.[1]);
    expect(serverPid).toBeGreaterThan(0);
    expect(serverPid).not.toBe(npm.pid);

    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const outcomes: Outcome[] = [];
    let sent = 0;
    let signalled = false;
    const npmExit = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
    // Each worker keeps its connection busy until the server refuses new connections.
    const worker = async () => {
      for (;;) {
        const outcome = await post(agent, httpUrl, key, sent++);
        outcomes.push(outcome);
        if ("error" in outcome && outcome.error === "ECONNREFUSED") return;
        if (outcomes.length >= 200 && !signalled) {
          signalled = true;
          npm.kill("SIGTERM");
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    agent.destroy();

    expect(await npmExit).toBe(0);
    const resets = outcomes.filter((o) => "error" in o && o.error !== "ECONNREFUSED");
    const answered = outcomes.filter((o) => "status" in o);
    expect(resets).toEqual([]);
    expect(answered.every((o) => "status" in o && o.status === 200)).toBe(true);
    expect(answered.length).toBeGreaterThan(200);
    expect(output()).toMatch(/"msg":"stopped"/);
    expect(pidAlive(serverPid)).toBe(false);
    expect(await portRefuses(httpUrl)).toBe(true);
  }, 120_000);
});
