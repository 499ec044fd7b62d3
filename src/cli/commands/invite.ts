import { parseArgs } from "node:util";
import { createInviteStore } from "../../accounts/invite-store.js";
import { withCliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";

const USAGE = "usage: modctl invite create [--count N] [--days D] | modctl invite list";

/** modctl invite create|list: one-time sign-up codes for SIGNUP=invite. */
export async function runInviteCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "create") {
    const { values } = parseArgs({ args: rest, options: { count: { type: "string" }, days: { type: "string" } } });
    const count = Number(values.count ?? 1);
    const days = Number(values.days ?? 7);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new UsageError("--count must be a whole number from 1 to 1000");
    if (!Number.isInteger(days) || days < 1 || days > 365) throw new UsageError("--days must be a whole number from 1 to 365");
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
