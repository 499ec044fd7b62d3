import type { HandlerContext } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModerateRequest, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { callerKey, signatureBindingKey } from "../interceptors/context-keys.js";
import { createModerator } from "../moderation/moderate.js";
import { createSecondOpinion } from "../moderation/second-opinion.js";
import { withLane } from "../threads/caller-lane.js";
import { isTextOnly } from "../workers/worker-answers.js";
import type { CompiledPolicy } from "../policies/apply-policy.js";

/** The answer to one Moderate call, signed ahead or not; the chain around it signs what is not. */
export type AnswerFor = (request: ModerateRequest, context: HandlerContext) => Promise<MessageInitShape<typeof ModerateResponseSchema>>;

/**
 * The one place that decides how a Moderate call is answered:
 * - under the caller's policy: on the event loop, where applyPolicy runs before the answer is
 *   assembled (and so before it is signed: the signature covers the policy's flags and name);
 * - text items only, embedded model only, and the edge said what the signature is bound to
 *   (signatureBindingKey): one compute-worker job classifies, renders and signs it ahead
 *   (src/workers/worker-answers.ts): the same answer, one thread hop fewer. OpenAI's route binds
 *   no signature, so its separate inputs (moderation/separate-inputs.ts) never come this way;
 * - anything else: moderate() on the event loop (images, the guard-model cascade, no workers).
 */
export function createAnswerFor(ctx: AppContext): AnswerFor {
  const moderate = createModerator({
    textClassifier: ctx.textClassifier,
    images: ctx.images,
    ...(ctx.textFlagBars ? { textFlagBars: ctx.textFlagBars } : {}),
    ...(ctx.textProvider ? { textProvider: { settings: ctx.textProvider.settings, secondOpinion: createSecondOpinion({ ...ctx.textProvider, log: ctx.log }) } } : {}),
  });
  // Mode off (asked for, or the default when none is asked for) is the only one a compute worker answers whole.
  const defaultOff = (ctx.textProvider?.settings.defaultMode ?? "off") === "off";
  const embeddedOnly = (mode: string) => (mode === "" ? defaultOff : mode === "off");
  const answerer = ctx.workerAnswerer;

  const answerUnder = (policy: CompiledPolicy | undefined, request: ModerateRequest, context: HandlerContext) => {
    const account = context.values.get(callerKey)?.accountId;
    // The queues this call's work waits in (compute workers, image model and decoding, providers)
    // take turns by its account, which its signal carries (threads/caller-lane.ts).
    const onEventLoop = () => moderate(request, account === undefined ? context.signal : withLane(context.signal, account), policy);
    if (policy) return onEventLoop();
    const binding = context.values.get(signatureBindingKey);
    if (answerer && binding && embeddedOnly(request.textProviderMode) && isTextOnly(request)) return answerer.answer(request, binding, ctx.clock(), account);
    return onEventLoop();
  };

  return (request, context) => {
    const caller = context.values.get(callerKey);
    if (!caller) return answerUnder(undefined, request, context);
    // A policy the store's cache knows is used at once: no promise turn per call for the look-up.
    const cached = ctx.policies.cachedForCaller(caller.accountId, caller.keyId);
    if (cached) return answerUnder(cached.policy, request, context);
    return ctx.policies.forCaller(caller.accountId, caller.keyId).then((policy) => answerUnder(policy, request, context));
  };
}
