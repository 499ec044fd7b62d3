import type { GetUsageResponse, UsageCounts as ProtoCounts } from "../../gen/moderation/v1/account_pb.js";

/**
 * The plain-JSON shape of a usage report (GET /v1/usage and modctl usage). Counts are JSON
 * numbers, not the strings proto JSON uses for 64-bit fields; times are Unix seconds.
 */
export function usageResponseToJson(response: GetUsageResponse, granularity: string) {
  return {
    account_id: response.accountId,
    plan: response.plan,
    requests_per_minute: response.requestsPerMinute,
    granularity,
    buckets: response.buckets.map((b) => ({ start: Number(b.start), ...countsToJson(b.counts) })),
    totals: countsToJson(response.totals),
  };
}

function countsToJson(counts: ProtoCounts | undefined) {
  return {
    requests: Number(counts?.requests ?? 0n),
    text_items: Number(counts?.textItems ?? 0n),
    image_items: Number(counts?.imageItems ?? 0n),
    deep_analyses: Number(counts?.deepAnalyses ?? 0n),
    flagged: Number(counts?.flagged ?? 0n),
  };
}
