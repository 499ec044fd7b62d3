import { parseArgs } from "node:util";
import { ApiError } from "../../errors/api-error.js";
import { createUsageStore } from "../../metering/usage-store.js";
import { parseTimeParam, resolveUsageQuery } from "../../metering/usage-query.js";
import { withCliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";

/**
 * modctl usage --account ID [--granularity minute|hour|day] [--from T] [--to T]
 * Reads what the server has flushed (it flushes about every second).
 */
export async function runUsageCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { account: { type: "string" }, granularity: { type: "string" }, from: { type: "string" }, to: { type: "string" } },
  });
  if (!values.account) throw new UsageError("usage needs --account ID");
  // The API's checks of these (invalid_request there) are mistakes in the command line here: exit 2.
  const query = asUsageError(() => {
    const from = parseTimeParam("--from", values.from);
    const to = parseTimeParam("--to", values.to, "up");
    return resolveUsageQuery({
      ...(values.granularity === undefined ? {} : { granularity: values.granularity }),
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    }, Date.now());
  });
  return withCliContext(async (ctx) => {
    const account = await ctx.accounts.getAccount(values.account!);
    if (!account) throw new ApiError("not_found", `No account with id "${values.account}".`);
    const report = await createUsageStore(ctx.db).read(account.id, query.granularity, query.from, query.to);
    const counts = (c: typeof report.totals) => ({
      requests: c.requests, text_items: c.textItems, image_items: c.imageItems, deep_analyses: c.deepAnalyses, flagged: c.flagged,
    });
    ctx.print({
      account_id: account.id,
      plan: account.plan,
      requests_per_minute: account.requestsPerMinute,
      granularity: query.granularity,
      buckets: report.buckets.map((b) => ({ start: b.start / 1000, ...counts(b.counts) })),
      totals: counts(report.totals),
    });
    return 0;
  });
}

/** Runs the API's own check of a parameter; its invalid_request is a usage error here. */
function asUsageError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_request") throw new UsageError(error.message);
    throw error;
  }
}
