/** Just enough cookie handling for one session cookie (no dependency needed). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (cookies.has(name)) continue; // the first (most specific path) wins, as browsers send it
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      // A malformed cookie is ignored rather than failing the request.
    }
  }
  return cookies;
}

interface CookieOptions {
  maxAgeSeconds?: number;
  secure: boolean;
  path?: string;
}

/** HttpOnly and SameSite=Lax always; Secure whenever the client reached us over TLS. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? "/"}`, "HttpOnly", "SameSite=Lax"];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
