import type { ServiceImpl } from "@connectrpc/connect";
import type { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createModerator } from "../moderation/moderate.js";
import { createListSigningKeys } from "./list-signing-keys.js";
import { callerKey, canonicalRequestKey, jsonDialectKey, rawJsonBodyKey, transportKey } from "../interceptors/context-keys.js";
import { isTextOnly } from "../workers/worker-answers.js";
import { createSecondOpinion } from "../moderation/second-opinion.js";

/**
 * The one implementation of ModerationService behind every protocol. Calls of text items only
 * are answered whole, signed, by a compute worker when there are workers (worker-answers.ts):
 * the same logic, one thread hop fewer.
 */
export function createModerationServiceImpl(ctx: AppContext): ServiceImpl<typeof ModerationService> {
  const moderate = createModerator({
    textClassifier: ctx.textClassifier,
    images: ctx.images,
    ...(ctx.textProvider ? { textProvider: { settings: ctx.textProvider.settings, secondOpinion: createSecondOpinion({ ...ctx.textProvider, log: ctx.log }) } } : {}),
  });
  // Mode off (asked for, or the default when none is asked for) is the only one a compute worker answers whole.
  const defaultOff = (ctx.textProvider?.settings.defaultMode ?? "off") === "off";
  const embeddedOnly = (mode: string) => (mode === "" ? defaultOff : mode === "off");
  const answerer = ctx.workerAnswerer;
  return {
    moderate: async (request, context) => {
      // The caller's policy, if any. A worker answers (and signs ahead) only calls under the model's
      // own flags: a call under a policy is answered here, where applyPolicy runs before the answer
      // is assembled and signed, so its signature covers the policy's flags and its name.
      const caller = context.values.get(callerKey);
      const policy = caller ? await ctx.policies.forCaller(caller.accountId, caller.keyId) : undefined;
      if (policy) return moderate(request, context.signal, policy);
      if (answerer && isTextOnly(request) && embeddedOnly(request.textProviderMode)) {
        // What the answer's signature is bound to: the JSON body, or the RPC request's canonical bytes.
        if (context.values.get(transportKey) === "json") {
          const requestBody = context.values.get(rawJsonBodyKey);
          // OpenAI's dialect is rendered by its route from the message, so a worker's rendering would be wasted.
          if (requestBody && context.values.get(jsonDialectKey) === "moderate") return answerer.json(request, requestBody, ctx.clock());
        } else {
          const requestBytes = context.values.get(canonicalRequestKey);
          if (requestBytes) return answerer.rpc(request, requestBytes, ctx.clock());
        }
      }
      return moderate(request, context.signal);
    },
    listSigningKeys: createListSigningKeys({ keys: ctx.signingKeys }),
  };
}
