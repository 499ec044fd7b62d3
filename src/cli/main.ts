import path from "node:path";
import { pathToFileURL } from "node:url";
import { ApiError, toApiError } from "../errors/api-error.js";
import { StorageUnavailableError, isPostgresSettingRefused } from "../storage/storage-errors.js";
import { ConfigError } from "../config/config.js";
import { UsageError } from "./usage-error.js";
import { outputLost, watchStdout } from "./output.js";

type Command = (args: string[]) => Promise<number>;

/**
 * Each command's module is loaded when it runs: `policy` brings in the classifier and the
 * moderation path (0.6 s of modctl's 1.2 s start on the development machine), which `account` or
 * `key` never need.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  account: async () => (await import("./commands/account.js")).runAccountCommand,
  key: async () => (await import("./commands/key.js")).runKeyCommand,
  plan: async () => (await import("./commands/plan.js")).runPlanCommand,
  signing: async () => (await import("./commands/signing.js")).runSigningCommand,
  verify: async () => (await import("./commands/verify.js")).runVerifyCommand,
  usage: async () => (await import("./commands/usage.js")).runUsageCommand,
  invite: async () => (await import("./commands/invite.js")).runInviteCommand,
  policy: async () => (await import("./commands/policy.js")).runPolicyCommand,
  store: async () => (await import("./commands/store.js")).runStoreCommand,
};

const HELP = `modctl: manage the moderation service's accounts and keys (prints JSON).
  modctl account create --email E --plan free|basic|pro|enterprise [--rpm N]
  modctl account list [--limit N] [--after ACCOUNT_ID]
  modctl account show|disable|enable (ACCOUNT_ID | --email E)
  modctl account set-password (ACCOUNT_ID | --email E)    new password on stdin
  modctl invite create [--count N] [--days D] | modctl invite list
  modctl key create --account ID [--name N]
  modctl key list --account ID
  modctl key revoke KEY_ID
  modctl plan set --account ID --plan P [--rpm N]
  modctl policy get|set|delete|test --account ID [--key KEY_ID] [--file POLICY.json|-] [--text T]   (docs/policies.md)
  modctl usage --account ID [--granularity minute|hour|day] [--from T] [--to T]
  modctl verify --request REQ.json --response RESP.txt (--jwks URL|FILE | --key PUBLIC.pem) [--max-age S] [--route PATH] [--account ID]
  modctl signing list | rotate | retire [--force] KID | generate --out FILE
  modctl store backup --out FILE | store copy --to postgres://…|FILE.sqlite   (docs/operations-database.md)
Uses the same store as the server: DATABASE_URL when set, else DATA_DIR (default ./data).`;

/** Exit codes: 0 done, 1 refused (error JSON on stderr), 2 bad command line or config. */
export async function runModctl(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  // Own keys only: "constructor" or "toString" is no command (both once ran Object's methods and
  // crashed on the exit code they returned).
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`${HELP}\n`);
    return name === undefined || name === "help" || name === "--help" ? 0 : 2;
  }
  // `modctl account create --help` was an unknown option (exit 2): help is asked for, so given.
  const beforeValues = args.indexOf("--") < 0 ? args : args.slice(0, args.indexOf("--"));
  if (beforeValues.includes("--help")) {
    process.stderr.write(`${HELP}\n`);
    return 0;
  }
  watchStdout();
  try {
    const command = await load();
    const code = await command(withNegativeValues(refuseRepeatedFlags(args)));
    const lost = await outputLost();
    if (lost === undefined) return code;
    process.stderr.write(`modctl: ${lost}\n`);
    return 1;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`modctl: ${error.message}\n`);
      return 2;
    }
    if (error instanceof ApiError || error instanceof StorageUnavailableError) {
      // A store that does not answer is a refusal like the API's 503, in the same JSON.
      const refusal = toApiError(error);
      process.stderr.write(`${JSON.stringify({ error: { code: refusal.code, message: refusal.message } })}\n`);
      return 1;
    }
    if (isPostgresSettingRefused(error)) {
      // DATABASE_URL names a user, password or database PostgreSQL refuses: a setting, as the server says.
      process.stderr.write(`modctl: DATABASE_URL: PostgreSQL refused the connection: ${(error as Error).message}\n`);
      return 2;
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`modctl: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`modctl: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * `--rpm -5` as `--rpm=-5`: node's argument parser takes a value that starts with "-" for an
 * option and refused the line as "ambiguous", so the caller never saw what is wrong with -5. No
 * modctl option is named like a negative number.
 */
function withNegativeValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    // After "--" nothing is an option (a kid may be "-5abc"): it was joined to it as "--=-5abc".
    if (arg === "--") return [...out, ...args.slice(i)];
    const next = args[i + 1];
    if (arg.startsWith("--") && !arg.includes("=") && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * A flag given twice is a mistake, not "the last one wins": `account create --email a@x --plan
 * free --email c@x` made c@x. Up to "--", after which nothing is a flag.
 */
function refuseRepeatedFlags(args: readonly string[]): readonly string[] {
  const seen = new Set<string>();
  for (const arg of args) {
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const name = arg.slice(2).split("=", 1)[0]!;
    if (seen.has(name)) throw new UsageError(`--${name} is given more than once`);
    seen.add(name);
  }
  return args;
}

// Run as a script (`npx tsx src/cli/main.ts account create ...`) it did nothing and exited 0, so a
// script using it believed it had made the account (audit, session 52): it runs as modctl then.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await runModctl(process.argv.slice(2));
}
