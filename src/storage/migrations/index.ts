import { accountsAndKeys } from "./20261122-1500-accounts-and-keys.js";
import type { Migration } from "./migration.js";
import { usageBuckets } from "./20261123-1000-usage.js";
import { dashboardSessions } from "./20261123-1010-dashboard-sessions.js";
import { loginFailures } from "./20261124-1900-login-failures.js";
import { usageJournal } from "./20261126-2000-usage-journal.js";
import { accountAdmin } from "./20261126-2010-account-admin.js";
import { policies } from "./20261126-2100-policies.js";
import { oneEmailSpelling } from "./20261203-1300-one-email-spelling.js";
import { asciiEmailDomains } from "./20261207-1200-ascii-email-domains.js";
import { dashboardKeyForms } from "./20261207-1800-dashboard-key-forms.js";

export const MIGRATIONS: readonly Migration[] = [
  accountsAndKeys,
  usageBuckets,
  dashboardSessions,
  loginFailures,
  usageJournal,
  accountAdmin,
  policies,
  oneEmailSpelling,
  asciiEmailDomains,
  dashboardKeyForms,
];
