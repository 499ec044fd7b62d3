import { ConfigError } from "../base/env-values.js";
import type { Logger } from "../base/logger.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";
import type { RateLimitConfig } from "./read-rate-limit-config.js";
import type { Clock, RateLimiter } from "./rate-limiter.js";
import { createRedisRateLimiter } from "./redis-rate-limiter.js";

interface CreateRateLimiterOptions {
  /** Config.redisUrl: Redis shared by every replica when set, else the embedded in-memory store. */
  redisUrl: string | undefined;
  config: RateLimitConfig;
  log?: Logger;
  /** Tests only. Leave unset in production so the Redis store uses the Redis server's clock. */
  clock?: Clock;
  /** How long start-up waits for the first Redis connection before serving anyway (per failure mode). */
  startupWaitMs?: number;
}

/** Picks the store from config and, for Redis, gives the first connection a moment before traffic. */
export async function createRateLimiter(options: CreateRateLimiterOptions): Promise<RateLimiter> {
  const clock = options.clock ? { clock: options.clock } : {};
  if (options.redisUrl === undefined) return createMemoryRateLimiter(clock);

  const limiter = createRedisRateLimiter({
    url: options.redisUrl,
    keyPrefix: options.config.keyPrefix,
    timeoutMs: options.config.timeoutMs,
    ...clock,
    ...(options.log ? { log: options.log } : {}),
  });
  const waitMs = options.startupWaitMs ?? 2_000;
  let timer: NodeJS.Timeout | undefined;
  const connected = await Promise.race([
    limiter.ready().then(() => true as const),
    limiter.refusedSetUp(),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  if (connected instanceof Error) {
    // Redis answered and said no (REDIS_URL's database index, user or password): retrying forever
    // would answer every call 503 for a setting nobody is told about.
    await limiter.close();
    throw new ConfigError(`REDIS_URL: Redis refused the connection's set-up: ${connected.message}`);
  }
  if (!connected) {
    options.log?.warn({ waitMs }, "rate limiter: Redis not reachable at start-up; serving per RATE_LIMIT_FAILURE_MODE while it retries");
  }
  return limiter;
}
