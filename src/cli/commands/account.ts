import { parseArgs } from "node:util";
import { ApiError } from "../../errors/api-error.js";
import { hashPassword, passwordProblem } from "../../dashboard/password.js";
import { withCliContext, type CliContext } from "../cli-context.js";
import { UsageError, parseWholeNumber } from "../usage-error.js";
import { parsePlanAndRpm } from "./parse-plan.js";

const USAGE = `usage: modctl account create --email E --plan free|basic|pro|enterprise [--rpm N]
       modctl account list [--limit N] [--after ACCOUNT_ID]
       modctl account show (ACCOUNT_ID | --email E)
       modctl account disable|enable (ACCOUNT_ID | --email E)
       modctl account set-password (ACCOUNT_ID | --email E)   (reads the new password from stdin)`;

/** modctl account create|list|show|disable|enable|set-password */
export async function runAccountCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "create": return create(rest);
    case "list": return list(rest);
    case "show": return show(rest);
    case "disable": return setDisabled(rest, true);
    case "enable": return setDisabled(rest, false);
    case "set-password": return setPassword(rest);
    default: throw new UsageError(USAGE);
  }
}

async function create(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, plan: { type: "string" }, rpm: { type: "string" } } });
  if (!values.email || !values.plan) throw new UsageError("account create needs --email and --plan");
  const { plan, rpm } = parsePlanAndRpm(values.plan, values.rpm);
  return withCliContext(async (ctx) => {
    ctx.print(await ctx.accounts.createAccount({ email: values.email!, plan, ...(rpm === undefined ? {} : { rpm }) }));
    return 0;
  });
}

async function list(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { limit: { type: "string" }, after: { type: "string" } } });
  const limit = parseWholeNumber("--limit", values.limit, 100, 1, 1000);
  return withCliContext(async (ctx) => {
    // An --after that names no account listed nothing, as if it were the last: every other command refuses an unknown id.
    if (values.after && !(await ctx.accounts.getAccount(values.after))) throw new ApiError("not_found", `No account "${values.after}".`);
    ctx.print(await ctx.accounts.listAccounts({ limit, ...(values.after ? { after: values.after } : {}) }));
    return 0;
  });
}

/** The account an ACCOUNT_ID or --email names; not_found (exit 1) when there is none. */
function parseTarget(rest: string[], command: string): (ctx: CliContext) => Promise<string> {
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { email: { type: "string" } } });
  if ((values.email === undefined) === (positionals.length !== 1) || positionals.length > 1) {
    throw new UsageError(`account ${command} needs one ACCOUNT_ID or --email E`);
  }
  return async (ctx) => {
    if (values.email === undefined) return positionals[0]!;
    const account = await ctx.accounts.findAccountByEmail(values.email);
    if (!account) throw new ApiError("not_found", `No account with email "${values.email.trim().toLowerCase()}".`);
    return account.id;
  };
}

async function show(rest: string[]): Promise<number> {
  const target = parseTarget(rest, "show");
  return withCliContext(async (ctx) => {
    const id = await target(ctx);
    const account = await ctx.accounts.getAccount(id);
    if (!account) throw new ApiError("not_found", `No account with id "${id}".`);
    ctx.print({ ...account, keys: await ctx.accounts.listKeys(id) });
    return 0;
  });
}

async function setDisabled(rest: string[], disabled: boolean): Promise<number> {
  const target = parseTarget(rest, disabled ? "disable" : "enable");
  return withCliContext(async (ctx) => {
    ctx.print(await ctx.accounts.setDisabled(await target(ctx), disabled));
    return 0;
  });
}

/** The password comes on stdin, so it never shows in `ps` or the shell history. */
async function setPassword(rest: string[]): Promise<number> {
  const target = parseTarget(rest, "set-password");
  const password = (await readStdin()).replace(/\r?\n$/, "");
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(`${problem} (give the new password on stdin)`);
  return withCliContext(async (ctx) => {
    const id = await target(ctx);
    // The dashboard's rules in full: the account's own email (or its local part) is refused too.
    const account = await ctx.accounts.getAccount(id);
    if (!account) throw new ApiError("not_found", `No account with id "${id}".`);
    const guessable = passwordProblem(password, account.email);
    if (guessable) throw new UsageError(`${guessable} (give the new password on stdin)`);
    await ctx.accounts.setPasswordHash(id, await hashPassword(password));
    ctx.print({ id, passwordSet: true, sessionsEnded: true });
    return 0;
  });
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError("account set-password reads the new password from stdin: pipe it in");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
