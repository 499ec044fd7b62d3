import { MAX_CUSTOM_RPM } from "../../accounts/account-store.js";
import { PLANS, isPlan, type Plan } from "../../accounts/plans.js";
import { UsageError } from "../usage-error.js";

/** --plan, checked on the command line like --rpm (exit 2), not left for the store to refuse (exit 1). */
export function parsePlan(raw: string): Plan {
  if (!isPlan(raw)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}; got "${raw}"`);
  return raw;
}

export function parseRpm(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > MAX_CUSTOM_RPM) {
    throw new UsageError(`--rpm must be a whole number from 1 to ${MAX_CUSTOM_RPM}; got "${raw}"`);
  }
  return Number(raw);
}
