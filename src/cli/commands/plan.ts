import { parseArgs } from "node:util";
import { withCliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";
import { parsePlanAndRpm } from "./parse-plan.js";

/** modctl plan set --account ID --plan P [--rpm N]: takes effect on the next request, no restart. */
export async function runPlanCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "set") throw new UsageError("usage: modctl plan set --account ID --plan free|basic|pro|enterprise [--rpm N]");
  const { values } = parseArgs({ args: rest, options: { account: { type: "string" }, plan: { type: "string" }, rpm: { type: "string" } } });
  if (!values.account || !values.plan) throw new UsageError("plan set needs --account and --plan");
  const { plan, rpm } = parsePlanAndRpm(values.plan, values.rpm);
  return withCliContext(async (ctx) => {
    ctx.print(await ctx.accounts.setPlan(values.account!, plan, rpm));
    return 0;
  });
}
