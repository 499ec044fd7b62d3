import { UsageError } from "../usage-error.js";

export function parseRpm(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) throw new UsageError(`--rpm must be a positive whole number; got "${raw}"`);
  return Number(raw);
}
