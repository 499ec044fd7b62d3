import { randomBytes } from "node:crypto";

/** How long a create-key form's token is remembered: a resend after that makes a new key. */
const REMEMBER_MS = 10 * 60_000;
/** Tokens remembered at most (oldest forgotten first), so a flood of forms cannot grow memory. */
const MAX_REMEMBERED = 10_000;

/** A fresh token for one rendering of the create-key form. */
export function newFormToken(): string {
  return randomBytes(16).toString("base64url");
}

const TOKEN = /^[A-Za-z0-9_-]{22}$/;

/**
 * One live key per create-key form. A double click, or a reload of the page that answered, sends
 * the form again: each post made a live key, and the page the browser kept showed only the last
 * one's secret (the others were live credentials nobody saw, counted toward the 100-key cap). Now
 * a post repeating a token waits for the one before, revokes the key it made and makes a new one:
 * the page shown holds the secret of the one key left. In memory, per process: a resend reaching
 * another replica makes a second key, as before.
 */
export function createKeyOnce() {
  const made = new Map<string, { at: number; key: Promise<{ id: string } | undefined> }>();
  return async <K extends { id: string }>(
    accountId: string,
    token: unknown,
    create: () => Promise<K>,
    revoke: (keyId: string) => Promise<void>,
  ): Promise<K> => {
    if (typeof token !== "string" || !TOKEN.test(token)) return create();
    const now = Date.now();
    for (const [k, entry] of made) {
      if (made.size <= MAX_REMEMBERED && now - entry.at < REMEMBER_MS) break;
      made.delete(k);
    }
    const slot = `${accountId}:${token}`;
    const before = made.get(slot)?.key;
    const attempt = (async () => {
      const earlier = await before;
      if (earlier) await revoke(earlier.id);
      return create();
    })();
    made.delete(slot);
    made.set(slot, { at: now, key: attempt.then((key) => ({ id: key.id }), () => undefined) });
    return attempt;
  };
}
