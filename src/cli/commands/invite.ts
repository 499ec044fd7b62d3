import { parseArgs } from "node:util";
import { createInviteStore } from "../../accounts/invite-store.js";
import { withCliContext } from "../cli-context.js";
import { UsageError, parseWholeNumber } from "../usage-error.js";

const USAGE = "usage: modctl invite create [--count N] [--days D] | modctl invite list";

/** modctl invite create|list: one-time sign-up codes for SIGNUP=invite. */
export async function runInviteCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parseArgs({ args: rest, options: { count: { type: "string" }, days: { type: "string" } } });
    const count = parseWholeNumber("--count", values.count, 1, 1, 1000);
    const days = parseWholeNumber("--days", values.days, 7, 1, 365);
    return withCliContext(async (ctx) => {
      const invites = createInviteStore(ctx.db);
      const created = [];
      // The codes are printed this once; only their hashes are stored.
      for (let i = 0; i < count; i++) created.push(await invites.create(days * 86_400_000));
      ctx.print(created);
      return 0;
    });
  }
  if (sub === "list") {
    parseArgs({ args: rest, options: {} });
    return withCliContext(async (ctx) => {
      ctx.print(await createInviteStore(ctx.db).list());
      return 0;
    });
  }
  throw new UsageError(USAGE);
}
