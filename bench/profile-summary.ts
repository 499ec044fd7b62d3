/**
 * Where a service's CPU went: reads the .cpuprofile files that `BENCH_CPU_PROF=dir npm run bench`
 * leaves (one per thread) and prints, per thread, the busy share and the heaviest functions and
 * source files by self time, and by inclusive time for the functions named in BENCH_FOCUS.
 *
 *   npx tsx bench/profile-summary.ts /tmp/prof/2-moderation-embedded-defaults [top=25] [requests]
 *
 * With the run's request count, times are also given in µs per request. The profile spans the
 * service's whole life (start-up included): BENCH_WINDOW=8 keeps only the samples of the 8 seconds
 * before its last half second (the measured load ends then and the service stops).
 */
import fs from "node:fs/promises";
import path from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile { nodes: Node[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

const [dir, topArg, requestsArg] = process.argv.slice(2);
if (!dir) throw new Error("usage: profile-summary.ts <dir with .cpuprofile files> [top] [requests]");
const TOP = Number(topArg ?? 25);
const REQUESTS = requestsArg ? Number(requestsArg) : undefined;
const FOCUS = (process.env.BENCH_FOCUS ?? "").split(",").filter(Boolean);
const WINDOW = process.env.BENCH_WINDOW ? Number(process.env.BENCH_WINDOW) * 1e6 : undefined;
const TAIL = 0.5e6;

const shortUrl = (url: string) => url.replace(/^file:\/\/\/.*?\/(node_modules|src|gen|bench)\//, "$1/").replace(/^node:/, "node:");
const label = (n: Node) => `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
/** Groups a file under its package (node_modules/x) or keeps the source path. */
const area = (url: string) => {
  const u = shortUrl(url);
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  return pkg ? `pkg ${pkg[1]}` : u || "(native/vm)";
};

for (const file of (await fs.readdir(dir)).filter((f) => f.endsWith(".cpuprofile")).sort()) {
  const profile = JSON.parse(await fs.readFile(path.join(dir, file), "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  const [from, to] = WINDOW ? [profile.endTime - TAIL - WINDOW, profile.endTime - TAIL] : [profile.startTime, profile.endTime];
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + delta);
  });
  const total = Math.min(to, profile.endTime) - Math.max(from, profile.startTime);
  let idle = 0;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, micros] of self) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    if (name === "(idle)") {
      idle += micros;
      continue;
    }
    byFunction.set(label(n), (byFunction.get(label(n)) ?? 0) + micros);
    byArea.set(area(n.callFrame.url), (byArea.get(area(n.callFrame.url)) ?? 0) + micros);
    // Inclusive time of focused functions: walk up once per distinct focus name.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = byId.get(at)!.callFrame.functionName;
      if (FOCUS.includes(fn) && !seen.has(fn)) {
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + micros);
      }
    }
  }
  const busy = total - idle;
  const fmt = (micros: number) =>
    `${(micros / 1000).toFixed(0).padStart(7)} ms ${((micros / busy) * 100).toFixed(1).padStart(5)}%` + (REQUESTS ? ` ${(micros / REQUESTS).toFixed(1).padStart(6)} µs/req` : "");
  console.log(`\n== ${file}: ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (${((busy / total) * 100).toFixed(0)}%)` + (REQUESTS ? `, ${(busy / REQUESTS).toFixed(1)} µs/req` : ""));
  console.log("-- by area (self time, share of busy)");
  for (const [k, v] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${fmt(v)}  ${k}`);
  console.log("-- by function (self time)");
  for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${fmt(v)}  ${k}`);
  if (FOCUS.length) {
    console.log("-- focus (inclusive)");
    for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1])) console.log(`${fmt(v)}  ${k}`);
  }
}
