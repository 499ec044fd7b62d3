import { MAX_CUSTOM_RPM } from "../../accounts/account-store.js";
import { UsageError } from "../usage-error.js";

export function parseRpm(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > MAX_CUSTOM_RPM) {
    throw new UsageError(`--rpm must be a whole number from 1 to ${MAX_CUSTOM_RPM}; got "${raw}"`);
  }
  return Number(raw);
}
