import os from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/base/env-values.js";
import { createPasswordHasher, passwordProblem, PasswordHashingBusyError, verifyPassword } from "../../src/dashboard/password.js";
import { readAbuseLimitsConfig, readTrustProxy } from "../../src/dashboard/read-abuse-limits-config.js";

const GUESSABLE = "This password is too easy to guess: it is a common password, a repeated or sequential pattern, only digits, or your email. A few unrelated words make a strong one.";

describe("password strength", () => {
  it.each([
    ["aaaaaaaaaa", "one character repeated"],
    ["1212121212", "two characters repeated"],
    ["abcabcabcabc", "a short pattern repeated"],
    ["1234567890", "only digits"],
    ["20240101199912", "only digits (dates)"],
    ["abcdefghijk", "an alphabet run"],
    ["qwertyuiop", "a keyboard row on the list"],
    ["1q2w3e4r5t", "a keyboard walk on the list"],
    ["password123", "a common password"],
    ["Password2024!", "a common stem with digits and symbols appended"],
    ["Iloveyou!!!!", "a common stem, any case"],
    ["moderation1", "the service's own name"],
    ["jane.doe@example.test", "the email"],
    ["jane.doe2024", "the email's local part with digits"],
  ])("refuses %s (%s)", (password) => {
    expect(passwordProblem(password, "jane.doe@example.test")).toBe(GUESSABLE);
  });

  it.each(["correct horse battery staple", "a long enough password", "my secret password 1", "Tr0ub4dor&3x!", "blue-kettle-7-orbit"])("accepts %s", (password) => {
    expect(passwordProblem(password, "jane.doe@example.test")).toBeUndefined();
  });

  it("keeps the length rules", () => {
    expect(passwordProblem("short")).toBe("Choose a password of at least 10 characters.");
    expect(passwordProblem("x".repeat(201))).toBe("Choose a password of at most 200 characters.");
    for (const typed of ["violet tiger\nmarble 42", "violet\ttiger marble", "violet tiger\r"]) expect(passwordProblem(typed)).toMatch(/cannot hold line breaks, tabs or other control characters/);
  });
});

describe("password hasher cap", () => {
  it("runs at most `concurrency` hashes, queues `maxQueue`, refuses the rest at once", async () => {
    const hasher = createPasswordHasher({ concurrency: 1, maxQueue: 1 });
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((i) => hasher.hash(`passphrase number ${i}`)));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "rejected"]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(PasswordHashingBusyError);
    const stored = (outcomes[0] as PromiseFulfilledResult<string>).value;
    expect(await verifyPassword("passphrase number 1", stored)).toBe(true);
    expect(await hasher.verify("passphrase number 1", stored)).toBe(true);
    expect(await hasher.verify("passphrase number 1", undefined)).toBe(false);
  });
});

describe("abuse limit settings", () => {
  it("reads defaults, numbers and TRUST_PROXY forms, and names the variable on a bad value", () => {
    expect(readAbuseLimitsConfig({})).toEqual({
      loginAttemptsPerIp: 30,
      loginFailuresPerAccount: 10,
      signupsPerIp: 5,
      passwordHashConcurrency: Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2))),
      passwordHashQueue: 32,
    });
    expect(readAbuseLimitsConfig({ SIGNUPS_PER_IP: "20", PASSWORD_HASH_QUEUE: "0" })).toMatchObject({ signupsPerIp: 20, passwordHashQueue: 0 });
    expect(() => readAbuseLimitsConfig({ LOGIN_ATTEMPTS_PER_IP: "0" })).toThrow(
      new ConfigError('LOGIN_ATTEMPTS_PER_IP must be a whole number from 1 to 1000000; got "0".'),
    );
    expect(readTrustProxy({})).toBe(false);
    expect(readTrustProxy({ TRUST_PROXY: "false" })).toBe(false);
    expect(readTrustProxy({ TRUST_PROXY: "true" })).toBe(true);
    expect(readTrustProxy({ TRUST_PROXY: "2" })).toBe(2);
    expect(readTrustProxy({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.5" })).toBe("10.0.0.0/8,192.168.1.5");
    expect(() => readTrustProxy({ TRUST_PROXY: "my-proxy.internal" })).toThrow(ConfigError);
    expect(readTrustProxy({ TRUST_PROXY: "::1, fd00::/8, loopback" })).toBe("::1,fd00::/8,loopback");
    // Shaped like addresses but none: they stopped the start naming no variable.
    for (const bad of ["999.999.999.999", "10.0.0.0/99", ":::", "::1/129", "10.0.0.1/8/8"]) {
      expect(() => readTrustProxy({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
  });
});
