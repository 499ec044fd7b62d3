import { isEd25519Jwk, type Jwks } from "../signing/jwk.js";

/**
 * Fetches a JWKS document and keeps only well-formed Ed25519 public keys. Callers should
 * cache it and fetch again once, with `fresh`, when a response names an unknown keyid (after a
 * rotation). `fresh` asks caches on the way for a copy checked with the server (`Cache-Control:
 * no-cache`): the JWKS is cacheable for 5 minutes, and a refetch served from a cache read the
 * same list without the new key (found by an audit with a proxy in front).
 */
export async function fetchJwks(url: string | URL, init: { fetch?: typeof fetch; signal?: AbortSignal; fresh?: boolean } = {}): Promise<Jwks> {
  const doFetch = init.fetch ?? fetch;
  const headers: Record<string, string> = init.fresh ? { accept: "application/json", "cache-control": "no-cache" } : { accept: "application/json" };
  const response = await doFetch(url, { headers, ...(init.signal ? { signal: init.signal } : {}) });
  if (!response.ok) throw new Error(`GET ${String(url)} answered ${response.status}`);
  const body: unknown = await response.json();
  const keys = (body as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error(`${String(url)} is not a JWKS document (no "keys" array)`);
  return { keys: keys.filter(isEd25519Jwk) };
}
