import { respellEmails } from "./20261203-1300-one-email-spelling.js";
import type { Migration } from "./migration.js";

/**
 * Accounts whose address has an internationalised domain ("ann@bücher.de") take its ASCII form
 * ("ann@xn--bcher-kva.de"), the one a browser's email field sends at log-in (normalizeEmail):
 * stored as typed, they could never log in to the dashboard.
 */
export const asciiEmailDomains: Migration = {
  id: "20261207-1200-ascii-email-domains",
  statements: [],
  rewriteRows: respellEmails,
};
