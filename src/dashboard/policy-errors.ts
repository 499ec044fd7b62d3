import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { ApiError } from "../errors/api-error.js";
import { validatePolicyRulesCooperatively } from "../policies/policy.js";
import type { PolicyForm } from "./pages/policy-page.js";

/**
 * The policy page's input a refusal is about (its id), so the page can mark and focus it; undefined
 * when it names none (a rate limit). The codes are the API's, which say which rule failed, not
 * which field of this form held it.
 * Tests: test/dashboard/resend-and-field-errors.test.ts.
 */
export async function fieldOfPolicyError(error: ApiError, form: PolicyForm, draft: unknown): Promise<string | undefined> {
  switch (error.code) {
    case "invalid_request":
      return /text to try/.test(error.message) ? "try-text" : undefined;
    case "policy_invalid_threshold": {
      const bad = CATEGORY_IDS.find((id) => !isThreshold(form.thresholds[id] ?? ""));
      return bad ? `t_${bad}` : undefined;
    }
    case "policy_list_too_large":
      return /\ballow list\b/.test(error.message) ? "allow" : "block";
    case "policy_unknown_category":
      return "block";
    case "policy_term_invalid":
      // A term on both lists is the allow list's to drop; else the list whose terms are refused alone.
      if (/both the block list and the allow list/.test(error.message)) return "allow";
      return (await refusesBlockList(draft)) ? "block" : "allow";
    default:
      return undefined;
  }
}

/** A refusal's text for the page: the API's remark on how RPC callers say "off" is no help here. */
export function policyErrorText(error: ApiError): string {
  return `${error.message.replace(/ \(over RPC:[^)]*\)/, "")} (${error.code})`;
}

/** A threshold box as the dashboard takes it: blank, "off", or a number from 0 to 1 (policy-pages.ts draftOf). */
function isThreshold(raw: string): boolean {
  if (raw === "" || raw.toLowerCase() === "off") return true;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(raw)) return false;
  const value = Number(raw);
  return value >= 0 && value <= 1;
}

async function refusesBlockList(draft: unknown): Promise<boolean> {
  const blockList = (draft as { blockList?: unknown } | undefined)?.blockList ?? [];
  return validatePolicyRulesCooperatively({ blockList }).then(() => false, () => true);
}
