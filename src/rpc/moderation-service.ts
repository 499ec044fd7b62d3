import type { ServiceImpl } from "@connectrpc/connect";
import type { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createModerator } from "../moderation/moderate.js";
// [signing] list-signing-keys import

/** The one implementation of ModerationService behind every protocol. */
export function createModerationServiceImpl(ctx: AppContext): ServiceImpl<typeof ModerationService> {
  const moderate = createModerator({
    textClassifier: ctx.textClassifier,
    // [images] moderator dependency
  });
  return {
    moderate: (request) => moderate(request),
    // [signing] list-signing-keys impl
    listSigningKeys: () => ({ keys: [] }),
  };
}
