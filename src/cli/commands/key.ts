import { parseArgs } from "node:util";
import { withCliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";
import { ApiError } from "../../errors/api-error.js";

const USAGE = "usage: modctl key create --account ID [--name N] | modctl key revoke KEY_ID | modctl key list --account ID";

/** modctl key create|revoke|list */
export async function runKeyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parseArgs({ args: rest, options: { account: { type: "string" }, name: { type: "string" } } });
    if (!values.account) throw new UsageError("key create needs --account ID");
    return withCliContext(async (ctx) => {
      // The secret is printed this once; only its hash is stored.
      ctx.print(await ctx.accounts.createKey(values.account!, values.name ?? "default"));
      return 0;
    });
  }
  if (sub === "revoke") {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
    if (positionals.length !== 1) throw new UsageError("key revoke needs exactly one KEY_ID");
    return withCliContext(async (ctx) => {
      ctx.print(await ctx.accounts.revokeKey(positionals[0]!));
      return 0;
    });
  }
  if (sub === "list") {
    const { values } = parseArgs({ args: rest, options: { account: { type: "string" } } });
    if (!values.account) throw new UsageError("key list needs --account ID");
    return withCliContext(async (ctx) => {
      // As key create and usage answer it: an empty list would read as "an account with no keys".
      if (!(await ctx.accounts.getAccount(values.account!))) throw new ApiError("not_found", `No account "${values.account}".`);
      ctx.print(await ctx.accounts.listKeys(values.account!));
      return 0;
    });
  }
  throw new UsageError(USAGE);
}
