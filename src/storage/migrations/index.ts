import { accountsAndKeys } from "./20261122-1500-accounts-and-keys.js";
import type { Migration } from "./migration.js";
// [metering] migration import

export const MIGRATIONS: readonly Migration[] = [
  accountsAndKeys,
  // [metering] migration entry
];
