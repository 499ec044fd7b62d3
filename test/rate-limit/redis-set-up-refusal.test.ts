import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/base/env-values.js";
import { createRateLimiter } from "../../src/rate-limit/create-rate-limiter.js";
import { RATE_LIMIT_DEFAULTS } from "../../src/rate-limit/read-rate-limit-config.js";

/** A server speaking RESP that answers every command with one error reply, as Redis does when it refuses. */
async function refusingRedis(errorReply: string): Promise<{ url: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("data", () => socket.write(`-${errorReply}\r\n`));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}/1`,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

let fake: { url: string; close(): void } | undefined;
afterEach(() => fake?.close());

describe("Redis answering the connection's set-up with an error", () => {
  it.each([["WRONGPASS invalid username-password pair or user is disabled."], ["ERR DB index is out of range"], ["NOAUTH Authentication required."], ["ERR invalid password"]])("%s is REDIS_URL's setting: a configuration error", async (reply) => {
    fake = await refusingRedis(reply);
    await expect(createRateLimiter({ redisUrl: fake.url, config: RATE_LIMIT_DEFAULTS, startupWaitMs: 3_000 })).rejects.toThrow(ConfigError);
  });

  it.each([["ERR max number of clients reached"], ["BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT."], ["LOADING Redis is loading the dataset in memory"], ["MASTERDOWN Link with MASTER is down"]])("%s passes: the service starts and serves per the failure mode (it exited 2)", async (reply) => {
    fake = await refusingRedis(reply);
    const limiter = await createRateLimiter({ redisUrl: fake.url, config: RATE_LIMIT_DEFAULTS, startupWaitMs: 500 });
    try {
      await expect(limiter.consume("acct", 10)).rejects.toMatchObject({ name: "RateLimiterUnavailableError" });
    } finally {
      await limiter.close();
    }
  });
});
