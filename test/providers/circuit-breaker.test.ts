import { describe, expect, it } from "vitest";
import { createCircuitBreaker } from "../../src/providers/circuit-breaker.js";

function breaker() {
  const clock = { now: 0 };
  const b = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 1_000, now: () => clock.now });
  return { b, clock };
}

describe("circuit breaker", () => {
  it("stays closed below the threshold and a success resets the count", () => {
    const { b } = breaker();
    b.onFailure();
    b.onFailure();
    b.onSuccess();
    b.onFailure();
    b.onFailure();
    expect(b.state()).toBe("closed");
    expect(b.tryAcquire()).toEqual({ allowed: true });
  });

  it("opens after consecutive failures and reports how long to wait", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.onFailure();
    expect(b.state()).toBe("open");
    clock.now = 400;
    expect(b.tryAcquire()).toEqual({ allowed: false, retryAfterMs: 600 });
  });

  it("lets exactly one trial through when half-open", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.onFailure();
    clock.now = 1_000;
    expect(b.state()).toBe("half_open");
    expect(b.tryAcquire().allowed).toBe(true);
    expect(b.tryAcquire().allowed).toBe(false);
  });

  it("closes after a successful trial and reopens after a failed one", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.onFailure();
    clock.now = 1_000;
    b.tryAcquire();
    b.onFailure();
    expect(b.state()).toBe("open");
    clock.now = 1_999;
    expect(b.state()).toBe("open");
    clock.now = 2_000;
    b.tryAcquire();
    b.onSuccess();
    expect(b.state()).toBe("closed");
  });

  it("gives the trial back when the attempt was cancelled", () => {
    const { b, clock } = breaker();
    for (let i = 0; i < 3; i++) b.onFailure();
    clock.now = 1_000;
    b.tryAcquire();
    b.release();
    expect(b.tryAcquire().allowed).toBe(true);
  });
});

// Found by an audit of clock jumps (session 52): on the wall clock, a step back of an hour kept an
// open circuit open an hour (callers told Retry-After: 3605).
it("times its cooldown on a monotonic clock, whatever the wall clock does", async () => {
  const b = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 50 });
  b.onFailure();
  expect(b.state()).toBe("open");
  const realNow = Date.now;
  Date.now = () => realNow() - 3_600_000; // the wall clock stepped back an hour
  try {
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(b.state()).toBe("half_open");
  } finally {
    Date.now = realNow;
  }
});
