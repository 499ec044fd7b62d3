import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport, type Interceptor } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { Caller } from "../../src/accounts/account-store.js";
import { silentLogger } from "../../src/base/logger.js";
import { ApiError } from "../../src/errors/api-error.js";
import { callerKey } from "../../src/interceptors/context-keys.js";
import { createErrorMappingInterceptor } from "../../src/interceptors/error-mapping.js";
import { createRateLimitInterceptor } from "../../src/interceptors/rate-limit.js";
import { createMemoryRateLimiter } from "../../src/rate-limit/memory-rate-limiter.js";
import type { RateLimitFailureMode } from "../../src/rate-limit/read-rate-limit-config.js";
import { RateLimiterUnavailableError, type RateLimiter } from "../../src/rate-limit/rate-limiter.js";
import { createFakeClock } from "./fake-clock.js";

// In-process (no socket): the real interceptors around a stand-in handler, to reach the branches
// the end-to-end tests cannot reach on purpose.

const freeCaller: Caller = { accountId: "acct_1", keyId: "key_1", plan: "free", requestsPerMinute: 10 };

/** Stands in for auth: sets the caller as auth would. */
function fakeAuth(caller: Caller | undefined): Interceptor {
  return (next) => async (req) => {
    if (caller) req.contextValues.set(callerKey, caller);
    return next(req);
  };
}

const downLimiter: RateLimiter = {
  consume: async () => {
    throw new RateLimiterUnavailableError("down");
  },
  checkHealth: async () => {
    throw new RateLimiterUnavailableError("down");
  },
  close: async () => {},
};

function setup(options: {
  caller?: Caller;
  limiter?: RateLimiter;
  failureMode?: RateLimitFailureMode;
  handler?: () => Promise<never>;
  onUncounted?: () => void;
}) {
  const limiter = options.limiter ?? createMemoryRateLimiter({ clock: createFakeClock() });
  const interceptors = [
    createErrorMappingInterceptor(silentLogger),
    fakeAuth(options.caller),
    createRateLimitInterceptor({ limiter, failureMode: options.failureMode ?? "closed", ...(options.onUncounted ? { onUncounted: options.onUncounted } : {}) }),
  ];
  const transport = createRouterTransport(
    (router) => router.service(ModerationService, { moderate: options.handler ?? (async () => ({})) }),
    { router: { interceptors } },
  );
  const client = createClient(ModerationService, transport);
  return async () => {
    const headers = new Headers();
    const collect = (h: Headers) => h.forEach((value, name) => headers.set(name, value));
    try {
      await client.moderate(create(ModerateRequestSchema), { onHeader: collect, onTrailer: collect });
      return { error: undefined, headers };
    } catch (error) {
      const connectError = ConnectError.from(error);
      collect(connectError.metadata);
      return { error: connectError, headers };
    }
  };
}

describe("rate limit interceptor", () => {
  it("leaves calls without a caller alone", async () => {
    const call = setup({});
    const { error, headers } = await call();
    expect(error).toBeUndefined();
    expect(headers.has("x-ratelimit-limit")).toBe(false);
  });

  it("adds the headers to an error the handler throws after the call was counted", async () => {
    const call = setup({
      caller: freeCaller,
      handler: async () => {
        throw new ApiError("invalid_request", "bad input");
      },
    });
    const { error, headers } = await call();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(headers.get("x-error-code")).toBe("invalid_request");
    expect(headers.get("x-ratelimit-remaining")).toBe("9");
  });

  it("keeps an unexpected handler failure an internal_error, with the headers", async () => {
    const call = setup({
      caller: freeCaller,
      handler: async () => {
        throw new Error("boom");
      },
    });
    const { error, headers } = await call();
    expect(error?.code).toBe(Code.Internal);
    expect(error?.rawMessage).toBe("The server failed to process the request.");
    expect(headers.get("x-ratelimit-limit")).toBe("10");
  });

  it("fails closed: 503 rate_limiter_unavailable with Retry-After and the known policy", async () => {
    let uncounted = 0;
    const { error, headers } = await setup({ caller: freeCaller, limiter: downLimiter, onUncounted: () => uncounted++ })();
    expect(uncounted).toBe(0);
    expect(error?.code).toBe(Code.Unavailable);
    expect(headers.get("x-error-code")).toBe("rate_limiter_unavailable");
    expect(headers.get("retry-after")).toBe("1");
    expect(headers.get("x-ratelimit-limit")).toBe("10");
    expect(headers.has("x-ratelimit-remaining")).toBe(false);
  });

  it("fails open when configured: the call is served, uncounted, with the known policy", async () => {
    let uncounted = 0;
    const { error, headers } = await setup({ caller: freeCaller, limiter: downLimiter, failureMode: "open", onUncounted: () => uncounted++ })();
    expect(error).toBeUndefined();
    expect(uncounted).toBe(1);
    expect(headers.get("ratelimit-policy")).toBe('"per-minute";q=10;w=60');
    expect(headers.has("x-ratelimit-remaining")).toBe(false);
  });

  it("refuses an account whose limit is not set rather than failing with internal_error", async () => {
    const { error } = await setup({ caller: { ...freeCaller, plan: "enterprise", requestsPerMinute: 0 } })();
    expect(error?.code).toBe(Code.ResourceExhausted);
    expect(error?.rawMessage).toBe("This account has no request quota. Its plan's limit must be set.");
  });
});
