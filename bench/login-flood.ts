/**
 * What a log-in flood costs the API: API requests/s on one replica alone, then while log-ins with
 * random emails (a full scrypt each) arrive at a fixed rate from 64 browsers (open loop: an attacker
 * does not wait for answers), with the password hashing cap at its default
 * (PASSWORD_HASH_CONCURRENCY = half the cores, queue 32) and effectively off (64, queue 10,000). The per-IP log-in
 * limit is lifted so the cap alone is measured. Each configuration runs twice, alternating, since
 * a shared machine's load drifts.
 *
 *   npm run bench:login-flood [-- --seconds 8 --rate 64]
 *
 * Prints figures (ratios within one run); not a test.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAccountStore } from "../src/accounts/account-store.js";
import { openDatabase } from "../src/storage/open-database.js";
import { useAutocannon } from "./support/load-generators.js";
import { freePort, spawnNode, stop } from "./support/spawn-service.js";

const { values: args } = parseArgs({ options: { seconds: { type: "string", default: "8" }, rate: { type: "string", default: "64" } } });
const SECONDS = Number(args.seconds);
const RATE = Number(args.rate);
const BROWSERS = 64;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-login-flood-"));
const db = await openDatabase({ databaseUrl: undefined, dataDir });
const accounts = createAccountStore(db);
const account = await accounts.createAccount({ email: `bench-${Date.now()}@example.test`, plan: "enterprise", rpm: 100_000_000 });
const { key } = await accounts.createKey(account.id, "bench");
await db.close();

/** A browser's pre-session: its cookie and the CSRF token that goes with it (reusable for every post). */
async function browser(baseUrl: string): Promise<{ cookie: string; csrf: string }> {
  const page = await fetch(`${baseUrl}/dashboard/login`);
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  return { cookie, csrf };
}

/** Sends RATE log-ins a second, round robin over the browsers, without waiting for answers. */
function flood(baseUrl: string, browsers: Array<{ cookie: string; csrf: string }>, statuses: Map<number, number>) {
  const pending: Array<Promise<void>> = [];
  let sent = 0;
  const timer = setInterval(() => {
    const { cookie, csrf } = browsers[sent++ % browsers.length]!;
    pending.push(
      fetch(`${baseUrl}/dashboard/login`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, origin: baseUrl, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, email: `flood-${Math.random()}@example.test`, password: "not the password at all" }),
      }).then(
        async (answer) => {
          await answer.arrayBuffer();
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        },
        () => void statuses.set(0, (statuses.get(0) ?? 0) + 1),
      ),
    );
  }, 1000 / RATE);
  return async () => {
    clearInterval(timer);
    await Promise.all(pending);
  };
}

async function measure(label: string, env: Record<string, string>) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = await spawnNode(
    "src/main.ts",
    { PORT: String(port), GRPC_PORT: String(await freePort()), HOST: "127.0.0.1", DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", LOGIN_ATTEMPTS_PER_IP: "1000000", ...env },
    `${baseUrl}/healthz`,
  );
  try {
    const spec = {
      url: `${baseUrl}/v1/moderate`,
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input: [{ type: "text", text: "see you at the match on sunday" }] }),
      connections: 16,
      seconds: SECONDS,
    };
    await useAutocannon({ ...spec, seconds: 2 }); // warm-up
    const alone = await useAutocannon(spec);
    const statuses = new Map<number, number>();
    const browsers = await Promise.all(Array.from({ length: BROWSERS }, () => browser(baseUrl)));
    const stopFlood = flood(baseUrl, browsers, statuses);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // let the flood build up
    const flooded = await useAutocannon(spec);
    await stopFlood();
    const logins = [...statuses].sort().map(([status, n]) => `${status}×${n}`).join(" ");
    console.log(
      `${label.padEnd(40)} API alone ${alone.rps.toFixed(0).padStart(5)} req/s (p99 ${alone.p99} ms)` +
        ` | during flood ${flooded.rps.toFixed(0).padStart(5)} req/s (p99 ${flooded.p99} ms, non-2xx ${flooded.non2xx})` +
        ` = ${((100 * flooded.rps) / alone.rps).toFixed(0)}% | log-in answers ${logins}`,
    );
  } finally {
    await stop(child);
  }
}

console.log(`Node ${process.version}, ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}; ${RATE} log-ins/s from ${BROWSERS} browsers, ${SECONDS} s per phase`);
for (let round = 0; round < 2; round++) {
  await measure("default cap (half the cores), queue 32", {});
  await measure("cap 64, queue 10000 (no cap)", { PASSWORD_HASH_CONCURRENCY: "64", PASSWORD_HASH_QUEUE: "10000" });
}
fs.rmSync(dataDir, { recursive: true, force: true });
