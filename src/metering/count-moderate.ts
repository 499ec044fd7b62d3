import type { ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import type { UsageCounts } from "./usage-counts.js";

/** What countModerate reads of a request: its items' types, and whether images went to a vision model. */
export type CountedRequest = Pick<ModerateRequest, "input"> & { analyzeImages?: boolean };

/** What one moderation adds to its account's usage (the metering interceptor, the dashboard's "Try draft"). */
export function countModerate(request: CountedRequest, response: { flagged?: boolean }): UsageCounts {
  let textItems = 0;
  let imageItems = 0;
  for (const item of request.input) {
    if (item.type === "image") imageItems++;
    else textItems++;
  }
  return {
    requests: 1,
    textItems,
    imageItems,
    deepAnalyses: request.analyzeImages ? imageItems : 0,
    // The answer's top-level flag, as the caller sees it: OpenAI's separate strings get no
    // combined layer (moderation/separate-inputs.ts), so theirs is that of the results shown.
    flagged: response.flagged ? 1 : 0,
  };
}
