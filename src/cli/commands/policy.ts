import fs from "node:fs";
import { parseArgs } from "node:util";
import { create } from "@bufbuild/protobuf";
import { ModerateRequestSchema } from "../../../gen/moderation/v1/moderation_pb.js";
import { configuredFlagBars, loadConfiguredTextClassifier } from "../../classifiers/configured-text-classifier.js";
import { ApiError } from "../../errors/api-error.js";
import { createModerator } from "../../moderation/moderate.js";
import { compilePolicy } from "../../policies/apply-policy.js";
import { createPolicyStore, type PolicyScope } from "../../policies/policy-store.js";
import { validatePolicyRules } from "../../policies/policy.js";
import { withCliContext, type CliContext } from "../cli-context.js";
import { UsageError } from "../usage-error.js";

const USAGE = `usage: modctl policy get --account ID [--key KEY_ID]
       modctl policy set --account ID [--key KEY_ID] --file POLICY.json|-
       modctl policy delete --account ID [--key KEY_ID]
       modctl policy test --account ID [--key KEY_ID] [--file DRAFT.json|-] --text TEXT`;

/**
 * modctl policy get|set|delete|test: an account's moderation policy (docs/policies.md), on the
 * server's store. `set` takes the same draft as the API ({thresholds, block_list, allow_list}),
 * refused with the same codes, and applies on the next request of every replica; `delete` removes
 * the account's policy or a key's override (recorded as a change, as the API's DeletePolicy). `test` moderates a text under
 * the stored policy or a draft (not saved) and prints the answer.
 */
export async function runPolicyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { account: { type: "string" }, key: { type: "string" }, file: { type: "string" }, text: { type: "string" } } });
  if (!values.account || !["get", "set", "delete", "test"].includes(sub ?? "")) throw new UsageError(USAGE);
  if (sub === "set" && !values.file) throw new UsageError("policy set needs --file (a JSON policy, or - for stdin)");
  if (sub === "test" && values.text === undefined) throw new UsageError("policy test needs --text");
  const draft = values.file === undefined ? undefined : readDraft(values.file);
  return withCliContext(async (ctx) => {
    const scope = await scopeOf(ctx, values.account!, values.key);
    const policies = createPolicyStore(ctx.db);
    if (sub === "get") {
      ctx.print({ policy: (await policies.current(scope)) ?? null, changes: await policies.history(scope.accountId) });
    } else if (sub === "set") {
      ctx.print(await policies.update(scope, draft, "modctl"));
    } else if (sub === "delete") {
      const removed = await policies.remove(scope, "modctl");
      ctx.print(removed ? { removed: true, policyId: removed.id, version: removed.version } : { removed: false });
    } else {
      const policy = draft !== undefined
        ? compilePolicy({ id: "draft", version: 0, ...validatePolicyRules(draft) })
        : await policies.forCaller(scope.accountId, scope.keyId ?? "");
      const bars = configuredFlagBars(ctx.config.textClassifier);
      const moderate = createModerator({ textClassifier: await loadConfiguredTextClassifier(ctx.config.textClassifier), ...(bars ? { textFlagBars: bars } : {}) });
      ctx.print(await moderate(create(ModerateRequestSchema, { input: [{ type: "text", text: values.text! }] }), undefined, policy));
    }
    return 0;
  });
}

/** The account, and the key when one is named, checked to exist and belong together. */
async function scopeOf(ctx: CliContext, accountId: string, keyId: string | undefined): Promise<PolicyScope> {
  if (!(await ctx.accounts.getAccount(accountId))) throw new ApiError("not_found", `No account "${accountId}".`);
  if (keyId === undefined) return { accountId };
  const key = await ctx.accounts.getKey(keyId);
  if (!key || key.accountId !== accountId) throw new ApiError("not_found", `No key "${keyId}" in account "${accountId}".`);
  return { accountId, keyId };
}

function readDraft(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file === "-" ? "stdin" : file} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_policy", `${file === "-" ? "stdin" : file} is not JSON.`);
  }
}
