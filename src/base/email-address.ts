import { domainToASCII } from "node:url";

/**
 * One spelling per address, so that one person cannot hold two accounts under addresses that look
 * and deliver alike: trimmed, composed (NFC: "ü" typed as u + combining diaeresis is "ü"),
 * lower-cased, without the root dot a domain may end in ("example.com." is "example.com"), and
 * with an internationalised domain in its ASCII form ("bücher.de" is "xn--bcher-kva.de"), the
 * form a browser's email field sends: stored as typed, such an account could never log in.
 * In base because both the account store and the migrations that respelt older rows use it.
 */
export function normalizeEmail(email: string): string {
  // Lower-cased before composing: lower-casing can decompose ("J̌" -> "ǰ" spelt j + caron).
  const spelt = email.trim().toLowerCase().normalize("NFC").replace(/\.+$/, "");
  const at = spelt.lastIndexOf("@");
  const domain = spelt.slice(at + 1);
  if (at < 0 || /^[\x21-\x7e]*$/.test(domain)) return spelt;
  const ascii = domainToASCII(domain);
  return ascii === "" ? spelt : `${spelt.slice(0, at + 1)}${ascii}`;
}

/**
 * An address a browser's `<input type="email">` accepts (the HTML standard's "valid e-mail
 * address"): an ASCII local part, and a domain of ASCII labels. The dashboard logs in through
 * such a field, so an account under any other address (`jörg@example.com`, `a@x_y.com`, which
 * `modctl account create` took) could never log in.
 */
export function isBrowserEmail(email: string): boolean {
  return /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/.test(email);
}
