import { ApiError } from "../errors/api-error.js";
import { BUCKET_MS, bucketStart, isGranularity, type Granularity } from "./usage-counts.js";

/** Without `from`: the 30 UTC days ending with the one `to` falls in, as the dashboard shows them. */
const DEFAULT_DAYS = 30;

interface UsageQuery {
  granularity: Granularity;
  /** Unix milliseconds, inclusive. */
  from: number;
  /** Unix milliseconds, exclusive. */
  to: number;
}

/**
 * Checks a usage query the same way for RPC, HTTP and modctl. Times arrive in Unix seconds;
 * absent means "now" for `to` and, for `from`, the start of the 30 UTC days ending with the day
 * of `to` (30 whole days: to - 30 days reached into a 31st). 0 is the Unix epoch: it meant
 * "absent" too, so `from=0` gave 30 days and `to=0` now (a `from` after it answered data).
 */
export function resolveUsageQuery(input: { granularity?: string; from?: number; to?: number }, now: number): UsageQuery {
  const granularity = input.granularity === undefined || input.granularity === "" ? "day" : input.granularity;
  if (!isGranularity(granularity)) {
    throw new ApiError("invalid_request", `granularity must be "minute", "hour" or "day"; got "${granularity.slice(0, 40)}".`);
  }
  for (const [name, value] of [["from", input.from], ["to", input.to]] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new ApiError("invalid_request", `${name} must be a Unix time in seconds.`);
    }
  }
  // An end at the epoch holds nothing, and it meant "now" until 0 was read as a time: refused, not answered empty.
  if (input.to === 0) throw new ApiError("invalid_request", "to must be later than the Unix epoch (1970-01-01).");
  const to = input.to !== undefined ? input.to * 1000 : now;
  const from = input.from !== undefined ? input.from * 1000 : bucketStart(to - 1, "day") - (DEFAULT_DAYS - 1) * BUCKET_MS.day;
  if (from >= to) throw new ApiError("invalid_request", "from must be earlier than to.");
  return { granularity, from, to };
}

/** A date, or a date and time (minutes, seconds and fractions optional) with an optional Z or offset. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether the date part names a day of the calendar: Date.parse reads 2026-02-30 as 2 March. */
function isCalendarDate(raw: string): boolean {
  const [year, month, day] = raw.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Parses a query-string time: Unix seconds, or an ISO 8601 date such as 2026-11-01, read as UTC
 * when it names no offset (a date alone and a date and time alike: Date.parse reads the second in
 * the process's local time zone, so the same query meant other hours on a server outside UTC).
 * Fractions of a second round down for a start and `up` for an end, which is exclusive: an end of
 * 12:57:00.5 rounded down left out the 12:57 minute it overlaps.
 */
export function parseTimeParam(name: string, raw: string | undefined, round: "down" | "up" = "down"): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (/^\d+$/.test(raw)) return Number(raw);
  // ISO 8601's shape first: Date.parse alone also reads "1.5", "-1" and "2026-11-01 junk" as some date.
  const utc = raw.includes("T") && !/(?:Z|[+-]\d{2}:?\d{2})$/.test(raw) ? `${raw}Z` : raw;
  const ms = ISO_8601.test(raw) && isCalendarDate(raw) ? Date.parse(utc) : Number.NaN;
  if (Number.isNaN(ms)) throw new ApiError("invalid_request", `${name} must be Unix seconds or an ISO 8601 date; got "${raw.slice(0, 40)}".`);
  return round === "up" ? Math.ceil(ms / 1000) : Math.floor(ms / 1000);
}
