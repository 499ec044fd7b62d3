import { parseArgs } from "node:util";
import { withCliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";
import { parseRpm } from "./parse-rpm.js";

/** modctl account create --email E --plan P [--rpm N] */
export async function runAccountCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "create") throw new UsageError("usage: modctl account create --email E --plan free|basic|pro|enterprise [--rpm N]");
  const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, plan: { type: "string" }, rpm: { type: "string" } } });
  if (!values.email || !values.plan) throw new UsageError("account create needs --email and --plan");
  const rpm = parseRpm(values.rpm);
  return withCliContext(async (ctx) => {
    const account = await ctx.accounts.createAccount({ email: values.email!, plan: values.plan!, ...(rpm === undefined ? {} : { rpm }) });
    ctx.print(account);
    return 0;
  });
}
