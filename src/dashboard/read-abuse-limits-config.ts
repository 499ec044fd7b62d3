import { isIP } from "node:net";
import os from "node:os";
import { ConfigError, nonEmpty, type Env } from "../base/env-values.js";

/** Limits on log-in, sign-up and password hashing (docs/security.md explains each choice). */
export interface AbuseLimitsConfig {
  /** Log-in attempts per client IP per 15 minutes, successful or not (LOGIN_ATTEMPTS_PER_IP). */
  loginAttemptsPerIp: number;
  /** Failed log-ins on one account per 15 minutes, from any IP, before it answers only with back-off (LOGIN_FAILURES_PER_ACCOUNT). */
  loginFailuresPerAccount: number;
  /** Sign-ups per client IP per hour (SIGNUPS_PER_IP). */
  signupsPerIp: number;
  /** Password hashes (scrypt) computed at once in this process, and how many may wait (PASSWORD_HASH_CONCURRENCY, PASSWORD_HASH_QUEUE). */
  passwordHashConcurrency: number;
  passwordHashQueue: number;
}

const ABUSE_LIMIT_DEFAULTS: AbuseLimitsConfig = {
  loginAttemptsPerIp: 30,
  loginFailuresPerAccount: 10,
  signupsPerIp: 5,
  // Half the cores (one on a 2-core machine): a log-in flood then leaves the API the other half
  // (bench/login-flood.ts), and libuv's thread pool keeps threads for file, DNS and zlib work.
  passwordHashConcurrency: Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2))),
  passwordHashQueue: 32,
};

export function readAbuseLimitsConfig(env: Env): AbuseLimitsConfig {
  return {
    loginAttemptsPerIp: readCount(env, "LOGIN_ATTEMPTS_PER_IP", ABUSE_LIMIT_DEFAULTS.loginAttemptsPerIp, 1),
    loginFailuresPerAccount: readCount(env, "LOGIN_FAILURES_PER_ACCOUNT", ABUSE_LIMIT_DEFAULTS.loginFailuresPerAccount, 1),
    signupsPerIp: readCount(env, "SIGNUPS_PER_IP", ABUSE_LIMIT_DEFAULTS.signupsPerIp, 1),
    passwordHashConcurrency: readCount(env, "PASSWORD_HASH_CONCURRENCY", ABUSE_LIMIT_DEFAULTS.passwordHashConcurrency, 1),
    passwordHashQueue: readCount(env, "PASSWORD_HASH_QUEUE", ABUSE_LIMIT_DEFAULTS.passwordHashQueue, 0),
  };
}

/** The most proxies TRUST_PROXY may count: a chain longer than any real one reads as "trust every hop". */
const MAX_TRUSTED_HOPS = 32;

/**
 * TRUST_PROXY, in fastify's terms: unset or "false" trusts no proxy (the client IP is the socket's
 * address); "true" trusts every hop; a number (0 to MAX_TRUSTED_HOPS) trusts that many hops;
 * otherwise a comma-separated list of proxy addresses or CIDR ranges whose X-Forwarded-For is believed.
 */
export function readTrustProxy(env: Env): boolean | number | string {
  const raw = nonEmpty(env["TRUST_PROXY"]);
  if (raw === undefined || raw.toLowerCase() === "false") return false;
  if (raw.toLowerCase() === "true") return true;
  if (/^\d+$/.test(raw)) {
    // Bounded: "99999999999999999999" was read as 1e20 hops, trusting every hop, so any client
    // could choose its address with X-Forwarded-For.
    if (Number(raw) > MAX_TRUSTED_HOPS) throw new ConfigError(`TRUST_PROXY's hop count must be from 0 to ${MAX_TRUSTED_HOPS}; got "${raw}".`);
    return Number(raw);
  }
  const entries = raw.split(",").map((entry) => entry.trim());
  // Checked as addresses, not by their characters: "999.999.999.999" or "10.0.0.0/99" passed a
  // pattern and stopped the start with "invalid IP address", naming no variable.
  if (entries.some((entry) => !isProxyEntry(entry))) {
    throw new ConfigError(`TRUST_PROXY must be true, false, a number of hops, or proxy addresses/CIDRs separated by commas; got "${raw}".`);
  }
  return entries.join(",");
}

/** An IP address, an address/prefix within its family's bits, or one of proxy-addr's named ranges. */
function isProxyEntry(entry: string): boolean {
  if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function readCount(env: Env, name: string, fallback: number, min: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > 1_000_000) {
    throw new ConfigError(`${name} must be a whole number from ${min} to 1000000; got "${raw}".`);
  }
  return Number(raw);
}
