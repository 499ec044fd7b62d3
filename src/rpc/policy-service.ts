import { withLane } from "../threads/caller-lane.js";
import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import {
  DeletePolicyResponseSchema, GetPolicyResponseSchema, PolicyRulesSchema, PolicySchema, TestPolicyResponseSchema, UpdatePolicyResponseSchema,
  type PolicyRules as PolicyRulesMessage, type PolicyService,
} from "../../gen/moderation/v1/policy_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError, quotedId } from "../errors/api-error.js";
import { MISSING_KEY_MESSAGE } from "../interceptors/auth.js";
import { callerKey } from "../interceptors/context-keys.js";
import { createModerator } from "../moderation/moderate.js";
import { compilePolicyCooperatively } from "../policies/apply-policy.js";
import { validatePolicyRulesCooperatively, type Policy, type PolicyRules } from "../policies/policy.js";

/** The id a TestPolicy answer names: the draft was never stored. */
const DRAFT = { id: "draft", version: 0 } as const;

/**
 * PolicyService: an account reads, changes, removes and tries its own policy with its API key, for itself or
 * for one of its keys (never another account's: a key id it does not own is not found). Drafts go
 * through validatePolicyRules, as the dashboard's and modctl's do.
 */
export function createPolicyServiceImpl(ctx: Pick<AppContext, "policies" | "accounts" | "textClassifier" | "textFlagBars" | "images">): ServiceImpl<typeof PolicyService> {
  const moderate = createModerator({ textClassifier: ctx.textClassifier, images: ctx.images, ...(ctx.textFlagBars ? { textFlagBars: ctx.textFlagBars } : {}) });

  /**
   * The caller and the scope it names, checked to be its own; with `live`, a key's scope must be
   * a live key's: an override written for a revoked key applies to no call (after a rotation its
   * successor holds the override), and the write looked like it had worked.
   */
  async function scopeOf(context: HandlerContext, keyId: string, options: { live?: boolean } = {}) {
    const caller = context.values.get(callerKey);
    // Auth runs before every PolicyService method; this only guards against a miswired chain.
    if (!caller) throw new ApiError("missing_api_key", MISSING_KEY_MESSAGE);
    if (keyId !== "") {
      const key = await ctx.accounts.getKey(keyId);
      if (!key || key.accountId !== caller.accountId) throw new ApiError("not_found", `No key ${quotedId(keyId)} in this account.`);
      if (options.live && key.revokedAt !== null) throw new ApiError("not_found", `The key ${quotedId(keyId)} is revoked: its calls are refused, so no policy applies to them (a rotated key's override is its successor's).`);
    }
    return { caller, scope: { accountId: caller.accountId, ...(keyId !== "" ? { keyId } : {}) } };
  }

  return {
    async getPolicy(request, context) {
      const { caller, scope } = await scopeOf(context, request.keyId);
      const policy = await ctx.policies.current(scope);
      const changes = await ctx.policies.history(caller.accountId);
      return create(GetPolicyResponseSchema, {
        ...(policy ? { policy: toPolicyMessage(policy, request.keyId) } : {}),
        changes: changes.map((c) => ({
          policyId: c.policyId, keyId: c.keyId ?? "", version: c.version, previousVersion: c.previousVersion,
          changedAtMs: BigInt(c.changedAt), changedBy: c.changedBy, removed: c.removed,
        })),
      });
    },
    async updatePolicy(request, context) {
      const { caller, scope } = await scopeOf(context, request.keyId, { live: true });
      // Left out, it read as an empty draft and cleared every rule: clearing is asked for with `{}`.
      if (request.rules === undefined) throw new ApiError("invalid_policy", "rules is required; send empty rules ({}) to clear every rule.");
      const policy = await ctx.policies.update(scope, draftOf(request.rules), `key:${caller.keyId}`);
      return create(UpdatePolicyResponseSchema, { policy: toPolicyMessage(policy, request.keyId) });
    },
    async deletePolicy(request, context) {
      const { caller, scope } = await scopeOf(context, request.keyId);
      const removed = await ctx.policies.remove(scope, `key:${caller.keyId}`);
      return create(DeletePolicyResponseSchema, removed ? { removed: true, policyId: removed.id, version: removed.version } : { removed: false });
    },
    async testPolicy(request, context) {
      const { caller } = await scopeOf(context, "");
      // The caller's classify jobs wait in its account's turn (threads/caller-lane.ts).
      const signal = withLane(context.signal, caller.accountId);
      if (request.input.some((item) => item.type !== "text")) throw new ApiError("invalid_request", "TestPolicy takes text items only.");
      // Cooperatively: a full-size draft is 0.2-0.3 s of CPU, and other calls are answered in between.
      const draft = await compilePolicyCooperatively({ ...DRAFT, ...(await validatePolicyRulesCooperatively(draftOf(request.rules))) });
      const answer = await moderate(create(ModerateRequestSchema, { input: request.input }), signal, draft);
      return create(TestPolicyResponseSchema, { answer });
    },
  };
}

/** The draft validatePolicyRules reads, from the message form (thresholds and `off` as one map). */
export function draftOf(rules: PolicyRulesMessage | undefined): unknown {
  // No prototype: "__proto__" is then a key like any other (validation names it unknown) instead
  // of an assignment that stores nothing, and "constructor" is not found on an empty draft.
  const thresholds: Record<string, number | "off"> = Object.assign(Object.create(null) as Record<string, number | "off">, rules?.thresholds);
  const off = new Set<string>();
  for (const category of rules?.off ?? []) {
    if (off.has(category)) throw new ApiError("invalid_policy", `${category} is listed more than once in off.`);
    if (category in thresholds) throw new ApiError("invalid_policy", `${category} has a threshold and is also off; choose one.`);
    off.add(category);
    thresholds[category] = "off";
  }
  return {
    thresholds,
    blockList: (rules?.blockList ?? []).map((b) => ({ term: b.term, category: b.category === "" ? "custom" : b.category })),
    allowList: rules?.allowList ?? [],
  };
}

/** The message form of validated rules. */
function rulesMessage(rules: PolicyRules) {
  const thresholds: Record<string, number> = {};
  const off: string[] = [];
  for (const [category, threshold] of Object.entries(rules.thresholds)) {
    if (threshold === "off") off.push(category);
    else thresholds[category] = threshold;
  }
  return create(PolicyRulesSchema, { thresholds, off, blockList: rules.blockList, allowList: rules.allowList });
}

function toPolicyMessage(policy: Policy, keyId: string) {
  return create(PolicySchema, { id: policy.id, version: policy.version, rules: rulesMessage(policy), keyId });
}
