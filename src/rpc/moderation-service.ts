import type { ServiceImpl } from "@connectrpc/connect";
import type { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createModerator } from "../moderation/moderate.js";
import { createListSigningKeys } from "./list-signing-keys.js";
import { rawJsonBodyKey, transportKey } from "../interceptors/context-keys.js";
import { isTextOnly } from "../workers/json-answers.js";

/**
 * The one implementation of ModerationService behind every protocol. JSON-route calls of text
 * items only are answered whole by a compute worker when there are workers (json-answers.ts):
 * the same logic, one thread hop fewer.
 */
export function createModerationServiceImpl(ctx: AppContext): ServiceImpl<typeof ModerationService> {
  const moderate = createModerator({
    textClassifier: ctx.textClassifier,
    images: ctx.images,
  });
  const answerJson = ctx.jsonAnswerer;
  return {
    moderate: (request, context) => {
      const requestBody = context.values.get(rawJsonBodyKey);
      if (answerJson && requestBody && context.values.get(transportKey) === "json" && isTextOnly(request)) {
        return answerJson(request, requestBody, ctx.clock());
      }
      return moderate(request, context.signal);
    },
    listSigningKeys: createListSigningKeys({ keys: ctx.signingKeys }),
  };
}
