import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";

const run = promisify(execFile);

/** One load run against one URL. */
interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
  /** Requests per second offered in all (open loop); absent: as fast as the server answers. */
  rate?: number | undefined;
}

interface LoadResult {
  requests: number;
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

type LoadGenerator = (spec: LoadSpec) => Promise<LoadResult>;

export const useAutocannon: LoadGenerator = async (spec) => {
  const result = await autocannon({
    url: spec.url, method: "POST", headers: spec.headers, body: spec.body, connections: spec.connections, duration: spec.seconds,
    ...(spec.rate ? { overallRate: spec.rate } : {}),
  });
  return { requests: result.requests.total, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
};

/**
 * wrk (C, Debian package "wrk") with one thread: an independent load generator to cross-check
 * autocannon's figures. (On the 2-core development machine it drove both servers slightly
 * slower than autocannon, so autocannon stays the default.)
 */
export const useWrk: LoadGenerator = async (spec) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bench-wrk-"));
  const script = path.join(dir, "post.lua");
  const lua = [
    `wrk.method = "POST"`,
    `wrk.body = ${luaString(spec.body)}`,
    ...Object.entries(spec.headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
  ].join("\n");
  await fs.writeFile(script, lua);
  try {
    const { stdout } = await run("wrk", ["-t1", `-c${spec.connections}`, `-d${spec.seconds}s`, "--latency", "-s", script, spec.url], { timeout: (spec.seconds + 30) * 1000 });
    return parseWrk(stdout);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
};

/** Whether wrk is installed. */
export async function hasWrk(): Promise<boolean> {
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    // wrk --version prints its banner and exits 1; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

function luaString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function parseWrk(stdout: string): LoadResult {
  const number = (re: RegExp) => {
    const match = re.exec(stdout);
    return match ? Number(match[1]) : 0;
  };
  const latency = (percentile: string) => {
    const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(stdout);
    if (!match) throw new Error(`wrk printed no ${percentile}% latency:\n${stdout}`);
    const value = Number(match[1]);
    return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    requests: number(/(\d+) requests in/),
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    p50: latency("50"),
    p99: latency("99"),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
  };
}
