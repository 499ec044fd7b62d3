import type { ServiceImpl } from "@connectrpc/connect";
import type { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createModerator } from "../moderation/moderate.js";
import { createListSigningKeys } from "./list-signing-keys.js";

/** The one implementation of ModerationService behind every protocol. */
export function createModerationServiceImpl(ctx: AppContext): ServiceImpl<typeof ModerationService> {
  const moderate = createModerator({
    textClassifier: ctx.textClassifier,
    images: ctx.images,
  });
  return {
    moderate: (request, context) => moderate(request, context.signal),
    listSigningKeys: createListSigningKeys({ keys: ctx.signingKeys }),
  };
}
