/**
 * The caller's deadline as each RPC protocol sends it: grpc-timeout (gRPC, gRPC-Web: digits and
 * a unit) or connect-timeout-ms (Connect). The body guard refuses malformed ones and drops ones
 * too long for a timer; the deadline interceptor reads what is left.
 */

const TIMEOUT_SYNTAX = {
  "grpc-timeout": { pattern: /^\d{1,8}[HMSmun]$/, expected: "up to 8 digits and a unit (H, M, S, m, u or n), e.g. 500m" },
  "connect-timeout-ms": { pattern: /^\d{1,10}$/, expected: "up to 10 digits, in milliseconds" },
} as const;

export type DeadlineHeader = { name: keyof typeof TIMEOUT_SYNTAX; value: string };

/** The deadline header the call's protocol reads, if sent: grpc-timeout for gRPC and gRPC-Web, connect-timeout-ms for Connect. */
export function deadlineHeader(header: Headers): DeadlineHeader | undefined {
  const name = /^application\/grpc/i.test(header.get("content-type") ?? "") ? "grpc-timeout" : "connect-timeout-ms";
  const value = header.get(name);
  return value === null ? undefined : { name, value };
}

/** The caller's deadline header when Connect would reject its syntax. */
export function malformedTimeout(header: Headers): DeadlineHeader | undefined {
  const deadline = deadlineHeader(header);
  return deadline && !TIMEOUT_SYNTAX[deadline.name].pattern.test(deadline.value) ? deadline : undefined;
}

/** What a malformed header should have held, for the refusal's message. */
export function expectedTimeoutSyntax(deadline: DeadlineHeader): string {
  return TIMEOUT_SYNTAX[deadline.name].expected;
}

/** Milliseconds per unit of grpc-timeout. */
const GRPC_TIMEOUT_UNIT_MS = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 } as const;
/** The longest delay Node's timers hold (2^31 - 1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A well-formed deadline header's time, in milliseconds. */
export function timeoutMs({ name, value }: DeadlineHeader): number {
  return name === "grpc-timeout" ? Number(value.slice(0, -1)) * GRPC_TIMEOUT_UNIT_MS[value.slice(-1) as keyof typeof GRPC_TIMEOUT_UNIT_MS] : Number(value);
}

/** The deadline header whose (well-formed: malformedTimeout runs first) value is longer than a timer can hold, if any. */
export function endlessTimeout(header: Headers): DeadlineHeader["name"] | undefined {
  const deadline = deadlineHeader(header);
  return deadline && timeoutMs(deadline) > MAX_TIMER_MS ? deadline.name : undefined;
}
