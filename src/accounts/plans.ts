/** Plans and their requests-per-minute limits. Enterprise has no default: its limit is set per account. */
export const PLANS = ["free", "basic", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

const PLAN_RPM: Record<Exclude<Plan, "enterprise">, number> = { free: 10, basic: 60, pro: 300 };

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** The limit that applies to an account: the plan's, or the custom one for enterprise. */
export function requestsPerMinute(plan: Plan, customRpm: number | null): number {
  // At most 2^31 - 1, the limit the store takes: a larger one stored before it was refused is
  // read as that (the rate limiter refuses a limit past a safe integer, as a 500 on every call).
  if (plan === "enterprise") return Math.min(customRpm ?? 0, 2_147_483_647);
  return PLAN_RPM[plan];
}
