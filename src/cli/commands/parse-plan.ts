import { MAX_CUSTOM_RPM } from "../../accounts/account-store.js";
import { PLANS, isPlan, type Plan } from "../../accounts/plans.js";
import { UsageError, parseWholeNumber } from "../usage-error.js";

/**
 * --plan and --rpm, checked on the command line (exit 2) as the store would check them: a known
 * plan, a custom limit for enterprise and for no other. The store refused these with exit 1, the
 * code of a refusal, while a malformed --rpm was already exit 2.
 */
export function parsePlanAndRpm(rawPlan: string, rawRpm: string | undefined): { plan: Plan; rpm: number | undefined } {
  if (!isPlan(rawPlan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}; got "${rawPlan}"`);
  const rpm = rawRpm === undefined ? undefined : parseWholeNumber("--rpm", rawRpm, 0, 1, MAX_CUSTOM_RPM);
  if (rawPlan === "enterprise" && rpm === undefined) throw new UsageError("--plan enterprise needs --rpm N (its custom requests per minute)");
  if (rawPlan !== "enterprise" && rpm !== undefined) throw new UsageError(`--rpm applies to --plan enterprise only, not "${rawPlan}"`);
  return { plan: rawPlan, rpm };
}
