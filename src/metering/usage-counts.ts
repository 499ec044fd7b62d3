/** What one accepted Moderate request adds to its account's usage. */
export interface UsageCounts {
  requests: number;
  textItems: number;
  imageItems: number;
  /** Image items analysed by the deep-analysis provider (the request set analyze_images). */
  deepAnalyses: number;
  /** Requests whose overall verdict was flagged. */
  flagged: number;
}

export const GRANULARITIES = ["minute", "hour", "day"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const BUCKET_MS: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export function isGranularity(value: string): value is Granularity {
  return (GRANULARITIES as readonly string[]).includes(value);
}

/** Buckets are aligned to UTC: a day bucket starts at 00:00 UTC. */
export function bucketStart(at: number, granularity: Granularity): number {
  const size = BUCKET_MS[granularity];
  return Math.floor(at / size) * size;
}

export function emptyCounts(): UsageCounts {
  return { requests: 0, textItems: 0, imageItems: 0, deepAnalyses: 0, flagged: 0 };
}

export function addCounts(into: UsageCounts, more: UsageCounts): UsageCounts {
  into.requests += more.requests;
  into.textItems += more.textItems;
  into.imageItems += more.imageItems;
  into.deepAnalyses += more.deepAnalyses;
  into.flagged += more.flagged;
  return into;
}

/** One minute's counts for one account, as the meter hands them over. */
export interface UsageDelta {
  accountId: string;
  minuteStart: number;
  counts: UsageCounts;
}
