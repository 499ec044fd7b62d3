import { randomBytes } from "node:crypto";

/** Random, prefixed ids (`acct_…`, `key_…`): unguessable, so knowing one grants nothing. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("base64url")}`;
}
