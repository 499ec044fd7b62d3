import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { GetUsageResponseSchema, type AccountService } from "../../gen/moderation/v1/account_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { MISSING_KEY_MESSAGE } from "../interceptors/auth.js";
import { callerKey } from "../interceptors/context-keys.js";
import type { UsageCounts } from "../metering/usage-counts.js";
import { resolveUsageQuery } from "../metering/usage-query.js";

/** AccountService: an account reads its own usage with its API key; it can name no other account. */
export function createAccountServiceImpl(ctx: Pick<AppContext, "usage" | "meter" | "clock">): ServiceImpl<typeof AccountService> {
  return {
    async getUsage(request, handlerContext) {
      const caller = handlerContext.values.get(callerKey);
      // Auth runs before every AccountService method; this only guards against a miswired chain.
      if (!caller) throw new ApiError("missing_api_key", MISSING_KEY_MESSAGE);
      const query = resolveUsageQuery({
        granularity: request.granularity,
        ...(request.from === undefined ? {} : { from: Number(request.from) }),
        ...(request.to === undefined ? {} : { to: Number(request.to) }),
      }, ctx.clock());
      // Read-your-writes: this replica's buffered counts go out first.
      await ctx.meter.flush();
      const report = await ctx.usage.read(caller.accountId, query.granularity, query.from, query.to);
      return create(GetUsageResponseSchema, {
        accountId: caller.accountId,
        plan: caller.plan,
        requestsPerMinute: caller.requestsPerMinute,
        buckets: report.buckets.map((b) => ({ start: BigInt(b.start / 1000), counts: toProtoCounts(b.counts) })),
        totals: toProtoCounts(report.totals),
      });
    },
  };
}

function toProtoCounts(counts: UsageCounts) {
  return {
    requests: BigInt(counts.requests),
    textItems: BigInt(counts.textItems),
    imageItems: BigInt(counts.imageItems),
    deepAnalyses: BigInt(counts.deepAnalyses),
    flagged: BigInt(counts.flagged),
  };
}
