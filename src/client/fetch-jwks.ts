import { isEd25519Jwk, type Jwks } from "../signing/jwk.js";

/**
 * Fetches a JWKS document and keeps only well-formed Ed25519 public keys. Callers should
 * cache it and fetch again once when a response names an unknown keyid (after a rotation).
 */
export async function fetchJwks(url: string | URL, init: { fetch?: typeof fetch; signal?: AbortSignal } = {}): Promise<Jwks> {
  const doFetch = init.fetch ?? fetch;
  const response = await doFetch(url, { headers: { accept: "application/json" }, ...(init.signal ? { signal: init.signal } : {}) });
  if (!response.ok) throw new Error(`GET ${String(url)} answered ${response.status}`);
  const body: unknown = await response.json();
  const keys = (body as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error(`${String(url)} is not a JWKS document (no "keys" array)`);
  return { keys: keys.filter(isEd25519Jwk) };
}
