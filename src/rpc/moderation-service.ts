import type { ServiceImpl } from "@connectrpc/connect";
import type { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createAnswerFor } from "./answer-for.js";
import { createListSigningKeys } from "./list-signing-keys.js";

/**
 * The one implementation of ModerationService behind every protocol. Moderate asks answerFor
 * (answer-for.ts) for the answer to the call; whether a compute worker made and signed it
 * ahead is answerFor's business.
 */
export function createModerationServiceImpl(ctx: AppContext): ServiceImpl<typeof ModerationService> {
  const answerFor = createAnswerFor(ctx);
  return {
    moderate: (request, context) => answerFor(request, context),
    listSigningKeys: createListSigningKeys({ keys: ctx.signingKeys }),
  };
}
