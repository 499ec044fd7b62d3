import { afterEach, describe, expect, it } from "vitest";
import { parseTimeParam, resolveUsageQuery } from "../../src/metering/usage-query.js";

const DAY = 86_400_000;

describe("usage query times", () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  // Date.parse reads a date and time without an offset in the process's time zone: on a server in
  // New York, "2026-12-31T23:00" meant 04:00 UTC the next day, five hours off.
  it("reads a date and time without an offset as UTC, whatever the server's time zone", () => {
    for (const tz of ["America/New_York", "Asia/Kolkata", "UTC"]) {
      process.env.TZ = tz;
      expect(parseTimeParam("from", "2026-12-31T23:00"), tz).toBe(Date.UTC(2026, 11, 31, 23) / 1000);
      expect(parseTimeParam("from", "2026-12-31T23:00:30.5"), tz).toBe(Date.UTC(2026, 11, 31, 23, 0, 30) / 1000);
      expect(parseTimeParam("from", "2026-12-31"), tz).toBe(Date.UTC(2026, 11, 31) / 1000);
      expect(parseTimeParam("from", "2026-12-31T23:00+02:00"), tz).toBe(Date.UTC(2026, 11, 31, 21) / 1000);
      expect(parseTimeParam("from", "2026-12-31T23:00-0500"), tz).toBe(Date.UTC(2027, 0, 1, 4) / 1000);
    }
  });

  // It was to - 30 days, which reached into a 31st day bucket; the dashboard shows 30.
  it("defaults to the 30 UTC days ending with the day of `to`, as the dashboard shows them", () => {
    const now = Date.UTC(2027, 0, 31, 12);
    const query = resolveUsageQuery({}, now);
    expect(query).toEqual({ granularity: "day", from: Date.UTC(2027, 0, 2), to: now });
    expect((Math.floor((query.to - 1) / DAY) * DAY - query.from) / DAY + 1).toBe(30);
    // A `to` on a day's first instant ends the day before it.
    expect(resolveUsageQuery({ to: Date.UTC(2027, 1, 1) / 1000 }, now).from).toBe(Date.UTC(2027, 0, 2));
  });

  // 0 meant "absent": from=0 gave the default 30 days, and to=0 now, so a `from` after it answered data.
  it("reads 0 as the Unix epoch, not as a missing time", () => {
    const now = Date.UTC(2027, 0, 31, 12);
    expect(resolveUsageQuery({ from: 0, to: Date.UTC(2026, 0, 1) / 1000 }, now).from).toBe(0);
    expect(() => resolveUsageQuery({ from: Date.UTC(2026, 0, 1) / 1000, to: 0 }, now)).toThrow("to must be later than the Unix epoch (1970-01-01).");
    expect(() => resolveUsageQuery({ to: 0 }, now)).toThrow("to must be later than the Unix epoch");
    expect(parseTimeParam("from", "1970-01-01")).toBe(0);
  });

  // An exclusive end of 12:57:00.5 rounded down to 12:57:00 and left out the minute it overlaps.
  it("rounds a fraction of a second down for a start and up for an end", () => {
    expect(parseTimeParam("from", "2026-12-07T12:57:00.2Z")).toBe(Date.UTC(2026, 11, 7, 12, 57) / 1000);
    expect(parseTimeParam("to", "2026-12-07T12:57:00.5Z", "up")).toBe(Date.UTC(2026, 11, 7, 12, 57, 1) / 1000);
    expect(parseTimeParam("to", "2026-12-07T12:57:00Z", "up")).toBe(Date.UTC(2026, 11, 7, 12, 57) / 1000);
  });
});
