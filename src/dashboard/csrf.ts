import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The synchronizer token for a session: an HMAC keyed by the session token itself, so it is
 * tied to that session, needs no storage, and cannot be derived from what the database holds
 * (only a SHA-256 of the session token is stored). Before log-in, the "session" is a random
 * pre-session cookie, which protects the sign-up and log-in forms the same way.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("dashboard-csrf-v1").digest("base64url");
}

export function csrfMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Origin check, in addition to the token: a state-changing request must say it came from
 * our own pages. Browsers send Origin on every POST; Referer is the fallback for the rare
 * one that does not, and a request carrying neither is refused.
 */
export function sameOrigin(headers: { origin?: string | undefined; referer?: string | undefined }, expected: string): boolean {
  if (headers.origin !== undefined) return headers.origin === expected;
  if (headers.referer === undefined) return false;
  try {
    return new URL(headers.referer).origin === expected;
  } catch {
    return false;
  }
}
