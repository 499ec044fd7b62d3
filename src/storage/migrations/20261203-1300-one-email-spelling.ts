import { normalizeEmail } from "../../base/email-address.js";
import type { Migration } from "./migration.js";

/**
 * Accounts stored before addresses were normalised (trimmed and lower-cased only) take the one
 * spelling new sign-ups get: composed Unicode, no root dot on the domain. Left as they were, a
 * sign-up with the normalised spelling of such an address was accepted as a second account.
 * Where the normalised spelling is already another account's, both stay as they are: the
 * sign-in lookup still finds the older one by the spelling typed.
 */
export const oneEmailSpelling: Migration = {
  id: "20261203-1300-one-email-spelling",
  statements: [],
  rewriteRows: respellEmails,
};

/** Every account's address in today's spelling (normalizeEmail), unless that spelling is another account's. */
export async function respellEmails(tx: Parameters<NonNullable<Migration["rewriteRows"]>>[0]): Promise<void> {
  // Oldest first: of two older rows that normalise alike, the older account takes the spelling.
  const rows = await tx.query<{ id: string; email: string }>(`SELECT id, email FROM accounts ORDER BY created_at, id`);
  const taken = new Set(rows.map((r) => r.email));
  for (const { id, email } of rows) {
    const normalised = normalizeEmail(email);
    if (normalised === email || taken.has(normalised)) continue;
    await tx.execute(`UPDATE accounts SET email = $1 WHERE id = $2`, [normalised, id]);
    taken.add(normalised);
  }
}
