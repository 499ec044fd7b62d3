import { randomBytes } from "node:crypto";
import type { TLSSocket } from "node:tls";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Account } from "../accounts/account-store.js";
import type { AppContext } from "../app/app-context.js";
import { parseCookies, serializeCookie } from "./cookies.js";
import { csrfTokenFor } from "./csrf.js";
import { SESSION_TTL_MS, type Session } from "./session-store.js";

const SESSION_COOKIE = "mod_session";
const PRE_SESSION_COOKIE = "mod_presession";

interface DashboardState {
  session: Session | undefined;
  account: Account | undefined;
  csrf: string;
}

const states = new WeakMap<FastifyRequest, DashboardState>();

/** TLS directly, or a TLS-terminating proxy that says so. */
function isSecure(request: FastifyRequest): boolean {
  const forwarded = request.headers["x-forwarded-proto"];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
  return proto === "https" || Boolean((request.raw.socket as TLSSocket).encrypted);
}

/**
 * Our own origin, as the browser sees it: configured, or from the Host header (HTTP/2's
 * `:authority`, which has no Host: fastify's `hostname` leaves the port out, so every form
 * posted over HTTP/2 was refused as from another origin).
 */
export function expectedOrigin(request: FastifyRequest, configured: string | undefined): string {
  if (configured) return configured;
  const authority = request.headers.host ?? request.headers[":authority"];
  return `${isSecure(request) ? "https" : "http"}://${typeof authority === "string" ? authority : request.hostname}`;
}

/** Resolves the session cookie (or issues a pre-session one) and the CSRF token that goes with it. */
export async function loadState(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<DashboardState> {
  const cookies = parseCookies(request.headers.cookie);
  const raw = cookies.get(SESSION_COOKIE);
  const session = raw ? await ctx.dashboard.sessions.find(raw) : undefined;
  const found = session ? await ctx.accounts.getAccount(session.accountId) : undefined;
  // A disabled account's sessions are deleted on disabling; this also covers a session read meanwhile.
  const account = found?.disabledAt === null ? found : undefined;
  let basis = session && account ? session.token : cookies.get(PRE_SESSION_COOKIE);
  if (!basis || !/^[A-Za-z0-9_-]{43}$/.test(basis)) {
    basis = randomBytes(32).toString("base64url");
    reply.header("set-cookie", serializeCookie(PRE_SESSION_COOKIE, basis, { secure: isSecure(request), path: "/dashboard" }));
  }
  const state: DashboardState = { session: account ? session : undefined, account, csrf: csrfTokenFor(basis) };
  states.set(request, state);
  return state;
}

export function stateOf(request: FastifyRequest): DashboardState {
  const state = states.get(request);
  if (!state) throw new Error("dashboard state not loaded");
  return state;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string | undefined): void {
  reply.header("set-cookie", serializeCookie(SESSION_COOKIE, token ?? "", {
    secure: isSecure(request),
    maxAgeSeconds: token ? Math.floor(SESSION_TTL_MS / 1000) : 0,
  }));
}
