/**
 * One spelling per address, so that one person cannot hold two accounts under addresses that look
 * and deliver alike: trimmed, composed (NFC: "ü" typed as u + combining diaeresis is "ü"),
 * lower-cased, and without the root dot a domain may end in ("example.com." is "example.com").
 * In base because both the account store and the migration that respelt older rows use it.
 */
export function normalizeEmail(email: string): string {
  // Lower-cased before composing: lower-casing can decompose ("J̌" -> "ǰ" spelt j + caron).
  return email.trim().toLowerCase().normalize("NFC").replace(/\.+$/, "");
}
