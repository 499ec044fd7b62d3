import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import fs from "node:fs";
import { createConcurrencyLimiter, LimiterFullError } from "../providers/concurrency-limiter.js";

/** scrypt cost: N=2^15, r=8, p=1 (~32 MiB, tens of ms): OWASP's recommended minimum. */
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Stored as `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Checked against when the email is unknown, so a miss costs as much time as a hit.
let dummyHash: Promise<string> | undefined;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}

// Read once at start-up: passwords and stems that guessing tools try first (see the file's header).
const COMMON_PASSWORDS = new Set(
  fs
    .readFileSync(new URL("./common-passwords.txt", import.meta.url), "utf8")
    .split("\n")
    .map((line) => line.trim().toLowerCase())
    .filter((line) => line !== "" && !line.startsWith("#")),
);

/** Why a new password is unacceptable, or undefined when it is fine. `email` is the account's, when known. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  // A browser's password field drops line breaks and cannot type other control characters, so a
  // password holding one (`modctl account set-password` took "violet tiger\nmarble 42") could
  // never be typed at the log-in.
  if (/\p{Cc}/u.test(password)) return "A password cannot hold line breaks, tabs or other control characters: a browser's password field cannot send them.";
  if (isGuessable(password, email)) {
    return "This password is too easy to guess: it is a common password, a repeated or sequential pattern, only digits, or your email. A few unrelated words make a strong one.";
  }
  return undefined;
}

function isGuessable(password: string, email: string | undefined): boolean {
  const lower = password.normalize("NFKC").toLowerCase();
  // "Password2024!" is "password" to a guessing tool: strip what people append.
  const stem = lower.replace(/[\d\W_]+$/u, "");
  const local = email?.trim().toLowerCase().split("@")[0];
  if (COMMON_PASSWORDS.has(lower) || COMMON_PASSWORDS.has(stem)) return true;
  if (email && (lower === email.trim().toLowerCase() || (local && local.length >= 3 && stem === local))) return true;
  if (/^\d+$/.test(lower)) return true;
  if (new Set(lower).size < 5) return true; // aaaaaaaaaa, 1212121212, abcabcabca
  return isRun(lower);
}

/** abcdefghij, 9876543210: each character one step from the one before, in one direction. */
function isRun(text: string): boolean {
  const codes = [...text].map((c) => c.codePointAt(0) ?? 0);
  const step = (codes[1] ?? 0) - (codes[0] ?? 0);
  return Math.abs(step) === 1 && codes.every((code, i) => i === 0 || code - (codes[i - 1] ?? 0) === step);
}

/** The password hashing queue is full: the caller should answer 503 and ask to retry shortly. */
export class PasswordHashingBusyError extends Error {
  override name = "PasswordHashingBusyError";
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** With no stored hash (unknown email) it checks against a stand-in, so a miss costs what a hit does. */
  verify(password: string, stored: string | null | undefined): Promise<boolean>;
}

/**
 * Hashing and checking passwords under one cap per process. scrypt runs on libuv's small thread
 * pool (4 threads by default) and costs tens of ms and 32 MiB each: without a cap, a flood of
 * log-ins takes every thread (file, DNS and zlib work of the API wait behind it) and the CPU.
 * Past `maxQueue` waiting, callers get PasswordHashingBusyError at once.
 */
export function createPasswordHasher(options: { concurrency: number; maxQueue: number }): PasswordHasher {
  const limiter = createConcurrencyLimiter({ max: options.concurrency, maxQueue: options.maxQueue });
  const capped = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await limiter.run(task);
    } catch (error) {
      if (error instanceof LimiterFullError) throw new PasswordHashingBusyError("too many password hashes are waiting", { cause: error });
      throw error;
    }
  };
  return {
    hash: (password) => capped(() => hashPassword(password)),
    verify: async (password, stored) => {
      // The stand-in hash for unknown emails is made once, outside the cap, so it cannot be refused.
      const against = stored ?? (await dummyPasswordHash());
      return capped(() => verifyPassword(password, against));
    },
  };
}
