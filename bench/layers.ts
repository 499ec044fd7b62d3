/**
 * What each layer of the interceptor chain adds per request, measured in one run: the same
 * Moderate call (one short text item) through Connect's in-process router transport, first
 * with auth only, then adding each layer in turn. No sockets, so the figures are the layers'
 * own CPU cost, not HTTP's.
 *
 *   npm run bench:layers                 # REDIS_URL=redis://… adds the Redis limiter row
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { ModerationService } from "../gen/moderation/v1/moderation_pb.js";
import { createAppContext } from "../src/app/app-context.js";
import { readConfig } from "../src/config/config.js";
import { createAuthInterceptor } from "../src/interceptors/auth.js";
import { createErrorMappingInterceptor } from "../src/interceptors/error-mapping.js";
import { createMeteringInterceptor } from "../src/interceptors/metering.js";
import { createRateLimitInterceptor } from "../src/interceptors/rate-limit.js";
import { createSigningInterceptor } from "../src/interceptors/signing.js";
import { createRateLimiter } from "../src/rate-limit/create-rate-limiter.js";
import { createModerationServiceImpl } from "../src/rpc/moderation-service.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const TEXT = "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good.";

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-layers-"));
// WORKER_THREADS=0: one call at a time would mostly measure waking the compute worker, not the layers.
const ctx = await createAppContext(readConfig({ DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", PORT: "0", GRPC_PORT: "0", WORKER_THREADS: "0" }));
const account = await ctx.accounts.createAccount({ email: "layers@example.test", plan: "enterprise", rpm: 1_000_000_000 });
const { key } = await ctx.accounts.createKey(account.id);
const redisLimiter = process.env.REDIS_URL
  ? await createRateLimiter({ redisUrl: process.env.REDIS_URL, config: { ...ctx.config.rateLimit, keyPrefix: `bench:${Date.now()}:` } })
  : undefined;

const errors = createErrorMappingInterceptor(ctx.log);
const auth = createAuthInterceptor({ accounts: ctx.accounts, onKeyUsed: ctx.keyUsage.record });
const memoryLimit = createRateLimitInterceptor({ limiter: ctx.rateLimiter, failureMode: "closed" });
const metering = createMeteringInterceptor({ meter: ctx.meter });
const signing = createSigningInterceptor({ keys: ctx.signingKeys, now: ctx.clock });

const variants: Array<[string, Interceptor[]]> = [
  ["classifier + auth", [errors, auth]],
  ["+ rate limit (memory)", [errors, auth, memoryLimit]],
  ...(redisLimiter
    ? [["+ rate limit (Redis) instead", [errors, auth, createRateLimitInterceptor({ limiter: redisLimiter, failureMode: "closed" })]] as [string, Interceptor[]]]
    : []),
  ["+ metering", [errors, auth, memoryLimit, metering]],
  ["+ signing (full chain)", [signing, errors, auth, memoryLimit, metering]],
];

async function measure(interceptors: Interceptor[]): Promise<number> {
  const transport = createRouterTransport((router) => router.service(ModerationService, createModerationServiceImpl(ctx), { interceptors }));
  const client = createClient(ModerationService, transport);
  const call = () => client.moderate({ input: [{ type: "text", text: TEXT }] }, { headers: { "x-api-key": key } });
  for (let i = 0; i < 300; i++) await call(); // warm-up
  // CPU time, not wall time: the figure stays meaningful when other work shares the machine.
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS;
}

console.log(`${CALLS} sequential in-process Moderate calls per row, text model ${ctx.textClassifier.id}`);
// Two rounds: the first warms the JIT for every variant; only the second is reported.
for (const round of [1, 2]) {
  const results: string[] = [];
  let previous: number | undefined;
  for (const [name, interceptors] of variants) {
    const micros = await measure(interceptors);
    const delta = previous === undefined ? "" : `  (${micros - previous >= 0 ? "+" : ""}${(micros - previous).toFixed(1)} µs)`;
    results.push(`${name.padEnd(30)} ${micros.toFixed(1).padStart(7)} µs CPU/request${delta}`);
    if (!name.includes("instead")) previous = micros;
  }
  if (round === 2) console.log(`\n${results.join("\n")}`);
}
await redisLimiter?.close();
await ctx.close();
await fs.rm(dataDir, { recursive: true, force: true });
