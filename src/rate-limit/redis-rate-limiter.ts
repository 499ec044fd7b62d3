import { createHash, randomBytes } from "node:crypto";
import { ErrorReply, createClient } from "redis";
import type { Logger } from "../base/logger.js";
import {
  RATE_LIMIT_WINDOW_MS,
  RateLimiterUnavailableError,
  assertValidLimit,
  outageRetryAfterMs,
  systemClock,
  type Clock,
  type RateLimitDecision,
  type RateLimiter,
} from "./rate-limiter.js";

/**
 * Sliding window log: one sorted set per account, scored by request time in ms. Prune, count,
 * record and read happen in one script, so concurrent replicas can never both take the last slot.
 * It touches exactly KEYS[1], so the whole decision lives in one hash slot on Redis Cluster.
 *
 * ARGV: limit, window (ms), now (ms, or "" to use the Redis server's clock), unique member, and
 * "1" to only look (count nothing).
 * Returns { allowed (0|1), count after this request, ms until the next unit comes back }.
 */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  allowed = 1
  if ARGV[5] ~= '1' then
    redis.call('ZADD', key, now, ARGV[4])
    redis.call('PEXPIRE', key, window)
    count = count + 1
  end
end
local pivot = 0
if allowed == 0 then pivot = count - limit end
local entry = redis.call('ZRANGE', key, pivot, pivot, 'WITHSCORES')
local reset = 0
if entry[2] then reset = tonumber(entry[2]) + window - now end
return {allowed, count, reset}
`;

const SCRIPT_SHA1 = createHash("sha1").update(SLIDING_WINDOW_SCRIPT).digest("hex");

interface RedisRateLimiterOptions {
  url: string;
  /** Prepended to the account id; lets tests and several deployments share one Redis. */
  keyPrefix: string;
  /** Longest wait for Redis before the request is treated as "limiter unavailable". */
  timeoutMs: number;
  /**
   * Omit in production: the script then reads Redis's own TIME, so replicas with skewed clocks still
   * agree on one timeline. Tests pass a fake clock to step across window edges.
   */
  clock?: Clock;
  windowMs?: number;
  log?: Logger;
  /** The client's command queue bound (MAX_PENDING_COMMANDS); tests make it small. */
  maxPendingCommands?: number;
}

export interface RedisRateLimiter extends RateLimiter {
  /** Resolves once the first connection is up; the limiter works (fails per policy) before that. */
  ready(): Promise<void>;
  /**
   * Resolves with Redis's own refusal of the connection's set-up (a database index out of range,
   * wrong credentials) the first time one comes before any connection was ready. A Redis that
   * cannot be reached never resolves it: that may pass, a refusal is a setting.
   */
  refusedSetUp(): Promise<Error>;
}

/** Bounds memory if Redis stalls: past this many pending commands, calls fail instead of queueing. */
const MAX_PENDING_COMMANDS = 10_000;

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_MS;
  const log = options.log;
  const maxPending = options.maxPendingCommands ?? MAX_PENDING_COMMANDS;
  /**
   * Checks holding a place in the client's queue: from sending until the reply comes, or, for a
   * check that timed out, until its removal (ZREM) is answered too. Once a stall had filled the
   * queue with checks, the queue refused those removals, and the checks, run when Redis woke,
   * charged refused calls (56 in a 14 s stall under load). Each place stands for at most two
   * commands, so checks may take half the queue, less a margin for the one shared PING and
   * SCRIPT LOAD: a check that timed out always has room for its removal.
   */
  const maxChecksInFlight = Math.max(1, Math.floor((maxPending - 16) / 2));
  let checksInFlight = 0;
  const client = createClient({
    url: options.url,
    // Fail fast while disconnected instead of queueing requests until Redis comes back.
    disableOfflineQueue: true,
    commandsQueueMaxLength: maxPending,
    socket: {
      connectTimeout: 2_000,
      // Keep trying forever (never give up and close the client), backing off to 1 s with jitter.
      reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000) + Math.floor(Math.random() * 50),
    },
  });

  let everReady = false;
  let refuse: (error: Error) => void = () => undefined;
  const refused = new Promise<Error>((resolve) => (refuse = resolve));

  // When the store started failing (undefined while it answers): the 503's Retry-After grows with
  // it. Set by the connection's own error too, so an outage counts from when Redis went away, not
  // from this replica's first refused call (found by an audit).
  let failingSince: number | undefined;
  const outageClock = options.clock ?? systemClock;

  // Log transitions, not every failed reconnect attempt.
  let healthy = true;
  client.on("error", (error: unknown) => {
    failingSince ??= outageClock.now();
    // Before the first ready, Redis refusing what the URL asks of HELLO/AUTH/SELECT; not a state
    // that passes (max clients, BUSY with a script, LOADING, a failover), which is served per the
    // failure mode as any outage is.
    if (!everReady && error instanceof ErrorReply && refusesSettings(error.message)) refuse(error);
    if (!healthy) return;
    healthy = false;
    log?.warn({ err: error }, "rate limiter: Redis unavailable; applying the failure mode until it is back");
  });
  client.on("ready", () => {
    everReady = true;
    failingSince = undefined;
    // Load the script up front, so the first burst after a (re)start needs no NOSCRIPT round trip.
    client.sendCommand(["SCRIPT", "LOAD", SLIDING_WINDOW_SCRIPT]).catch(() => undefined);
    if (healthy) return;
    healthy = true;
    log?.info({}, "rate limiter: Redis connection restored");
  });

  // Not awaited: the service starts even if Redis is down, and requests meet the failure policy.
  const connected = client.connect().then(
    () => undefined,
    (error: unknown) => log?.warn({ err: error }, "rate limiter: Redis client closed"),
  );

  const memberPrefix = randomBytes(6).toString("base64url");
  let sequence = 0;

  const unavailable = (message: string, cause: unknown): RateLimiterUnavailableError => {
    const now = outageClock.now();
    // A stalled Redis (frozen, overloaded) raises no client error, so the outage is logged here,
    // once, unless the connection's own error said it already (found by an operations audit).
    if (failingSince === undefined && healthy) log?.warn({ err: cause }, `rate limiter: ${message}; applying the failure mode until it answers`);
    failingSince ??= now;
    return new RateLimiterUnavailableError(message, { cause, retryAfterMs: outageRetryAfterMs(now - failingSince) });
  };

  /** `call.abandoned` is set once the caller has given up: then no EVAL fallback may be sent. */
  async function evaluate(key: string, args: string[], call: { abandoned: boolean }): Promise<unknown> {
    try {
      return await client.sendCommand(["EVALSHA", SCRIPT_SHA1, "1", key, ...args]);
    } catch (error) {
      // A new or restarted Redis has an empty script cache: EVAL runs the script and caches it.
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT") || call.abandoned) throw error;
    }
    return client.sendCommand(["EVAL", SLIDING_WINDOW_SCRIPT, "1", key, ...args]);
  }

  const settled = (): void => void checksInFlight--;
  let pinging: Promise<string> | undefined;

  return {
    async consume(key, limit, consumeOptions = {}): Promise<RateLimitDecision> {
      assertValidLimit(limit);
      const window = consumeOptions.windowMs ?? windowMs;
      const now = options.clock ? String(Math.floor(options.clock.now())) : "";
      const member = `${memberPrefix}:${(sequence++).toString(36)}`;
      const redisKey = options.keyPrefix + key;
      const call = { abandoned: false };
      if (checksInFlight >= maxChecksInFlight) {
        throw unavailable("too many rate limit checks are waiting for Redis", undefined);
      }
      let reply: unknown;
      let answered: Promise<unknown> | undefined;
      try {
        const args = [String(limit), String(window), now, member, consumeOptions.dryRun ? "1" : "0"];
        checksInFlight++;
        answered = evaluate(redisKey, args, call);
        reply = await withTimeout(answered, options.timeoutMs);
        void answered.then(settled, settled);
      } catch (error) {
        call.abandoned = true;
        // The script may still run when a stalled Redis wakes. This removal goes down the same
        // connection right behind it, so Redis runs it straight after: the refusal is never charged.
        // The place is given back once both the check and its removal are answered (or refused).
        const removed = consumeOptions.dryRun ? Promise.resolve() : client.sendCommand(["ZREM", redisKey, member]).catch(() => undefined);
        if (answered) void Promise.allSettled([answered, removed]).then(settled);
        else settled();
        throw unavailable("Redis did not answer the rate limit check", error);
      }
      if (failingSince !== undefined && healthy) log?.info({}, "rate limiter: Redis answers again");
      failingSince = undefined;
      const [allowed, count, resetMs] = parseReply(reply);
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, limit - count),
        resetMs: Math.max(0, resetMs),
        windowMs: window,
      };
    },
    async checkHealth() {
      // One PING in the queue however many probes ask (/readyz is public): a stall must not
      // fill the client's queue with PINGs and crowd out the removals of timed-out checks.
      pinging ??= client.ping().finally(() => {
        pinging = undefined;
      });
      try {
        await withTimeout(pinging, options.timeoutMs);
      } catch (error) {
        throw new RateLimiterUnavailableError("Redis did not answer PING", { cause: error });
      }
    },
    ready: () => connected,
    refusedSetUp: () => refused,
    async close() {
      // Not close(): that waits for pending replies, which never come from a stuck Redis.
      client.destroy();
    },
  };
}

/**
 * node-redis's own command timeout only covers commands not yet written; a sent command waits for its
 * reply forever. So the deadline is ours; a reply that comes later resolves a promise nobody awaits.
 */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`Redis did not answer within ${ms} ms`);
      error.name = "TimeoutError";
      // After a stall of our own (GC, CPU), the reply may already be waiting in the socket: let the
      // poll phase read it before giving up, so a busy process does not blame Redis.
      setImmediate(() => reject(error));
    }, ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function parseReply(reply: unknown): [number, number, number] {
  if (Array.isArray(reply) && reply.length === 3 && reply.every((n) => typeof n === "number")) {
    return reply as [number, number, number];
  }
  throw new RateLimiterUnavailableError(`unexpected reply from the rate limit script: ${JSON.stringify(reply)}`);
}

/** Error replies that name REDIS_URL's own settings: its credentials or database index. */
const SETTING_REFUSALS = [
  /^WRONGPASS\b/, /^NOAUTH\b/, /^NOPERM\b/, /^ERR (?:invalid )?DB index/i, /^ERR SELECT is not allowed in cluster mode/i, /^ERR AUTH\b/, /^ERR Client sent AUTH/i,
  // Redis 5 and older: a wrong password, and a user name in the URL (AUTH with two arguments).
  /^ERR invalid password/i, /^ERR wrong number of arguments for 'auth' command/i,
  // SELECT of an index that is no integer Redis can hold ("/1.5" served the failure mode for good).
  /^ERR value is not an integer/i,
];

function refusesSettings(message: string): boolean {
  return SETTING_REFUSALS.some((pattern) => pattern.test(message));
}
