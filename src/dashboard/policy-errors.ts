import { isCategoryId } from "../classifiers/categories.js";
import type { ApiError } from "../errors/api-error.js";

/**
 * The policy page's input a refusal is about (its id), so the page can mark and focus it; undefined
 * when it names none (a rate limit). Read from the refusal's detail, which policy.ts (and the
 * try form, policy-pages.ts) set where they refuse: the codes say which rule failed, not which
 * field held it, and matching the messages broke silently when one was reworded.
 * Tests: test/dashboard/resend-and-field-errors.test.ts.
 */
export function fieldOfPolicyError(error: ApiError): string | undefined {
  const detail = error.detail;
  switch (detail?.field) {
    case "thresholds":
      return detail.category !== undefined && isCategoryId(detail.category) ? `t_${detail.category}` : undefined;
    case "block_list":
      return "block";
    case "allow_list":
      return "allow";
    case "text":
      return "try-text";
    default:
      return undefined;
  }
}

/** A refusal's text for the page: a remark for RPC callers (how they say "off") is no help here. */
export function policyErrorText(error: ApiError): string {
  const remark = error.detail?.rpcRemark;
  return `${remark ? error.message.replace(remark, "") : error.message} (${error.code})`;
}
