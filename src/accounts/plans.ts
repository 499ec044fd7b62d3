/** Plans and their requests-per-minute limits. Enterprise has no default: its limit is set per account. */
export const PLANS = ["free", "basic", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

const PLAN_RPM: Record<Exclude<Plan, "enterprise">, number> = { free: 10, basic: 60, pro: 300 };

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** The limit that applies to an account: the plan's, or the custom one for enterprise. */
export function requestsPerMinute(plan: Plan, customRpm: number | null): number {
  if (plan === "enterprise") return customRpm ?? 0;
  return PLAN_RPM[plan];
}
