import type { FastifyInstance, FastifyReply } from "fastify";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { describeWait, type Refusal } from "./auth-throttle.js";
import { redirect, sendPage } from "./replies.js";
import { loginPage, signupPage } from "./pages/auth-pages.js";
import { passwordPage, type PasswordField } from "./pages/password-page.js";
import { MAX_PASSWORD_LENGTH, PasswordHashingBusyError, passwordProblem } from "./password.js";
import { setSessionCookie, stateOf } from "./request-state.js";
import { normalizeEmail } from "../base/email-address.js";

type Form = Record<string, string | undefined>;

/** Sign-up, log-in and log-out. Self-service accounts start on the free plan. */
export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { sessions, invites, throttle, passwords } = ctx.dashboard;
  const mode = ctx.config.signup;
  // The log-in page offers sign-up only the way SIGNUP allows it.
  const login = (csrf: string, options: Parameters<typeof loginPage>[1] = {}) => loginPage(csrf, { ...options, signup: mode });

  app.get("/dashboard/signup", async (request, reply) => {
    const state = stateOf(request);
    return state.account ? redirect(reply, "/dashboard") : mode === "closed" ? sendPage(reply, signupPage(state.csrf, { mode }), 403, "forbidden") : sendPage(reply, signupPage(state.csrf, { mode }));
  });

  app.post("/dashboard/signup", async (request, reply) => {
    const state = stateOf(request);
    if (mode === "closed") return sendPage(reply, signupPage(state.csrf, { mode }), 403, "forbidden");
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? "").trim();
    const password = form.password ?? "";
    const invite = (form.invite ?? "").trim().slice(0, 100);
    const problem = passwordProblem(password, email);
    if (problem) return sendPage(reply, signupPage(state.csrf, { error: problem, errorField: "password", email, mode, invite }), 400, "invalid_request");
    // Counted per client IP before any work that costs (the invite, the hash, the account).
    const refusal = await throttle.beforeSignup(request.ip);
    if (refusal) return refuse(reply, refusal, signupPage(state.csrf, { error: refusal.message, email, mode, invite }));
    // The code is taken before the account exists and handed back if the sign-up fails.
    if (mode === "invite" && !(await invites.claim(invite))) {
      return sendPage(reply, signupPage(state.csrf, { error: "This invite code is unknown, used or expired.", errorField: "invite", email, mode, invite }), 403, "forbidden");
    }
    let accountId: string | undefined;
    try {
      const account = await ctx.accounts.createAccount({ email, plan: "free", passwordHash: await passwords.hash(password) });
      accountId = account.id;
      // As at log-in: a session open in this browser (signed in to another account) ends here.
      if (state.session) await sessions.destroy(state.session.token);
      const session = await sessions.create(account.id);
      setSessionCookie(request, reply, session.token);
      return redirect(reply, "/dashboard/keys?welcome=1");
    } catch (error) {
      if (error instanceof ApiError && (error.code === "invalid_request" || error.code === "email_taken")) {
        return sendPage(reply, signupPage(state.csrf, { error: error.message, errorField: "email", email, mode, invite }), error.httpStatus, error.code);
      }
      if (error instanceof PasswordHashingBusyError) return refuse(reply, HASHING_BUSY, signupPage(state.csrf, { error: HASHING_BUSY.message, email, mode, invite }));
      throw error;
    } finally {
      if (mode === "invite") await invites.settle(invite, accountId);
    }
  });

  app.get("/dashboard/login", async (request, reply) => {
    const state = stateOf(request);
    if (state.account) return redirect(reply, "/dashboard");
    const info = (request.query as Form).loggedOut ? "You are logged out." : undefined;
    return sendPage(reply, login(state.csrf, info ? { info } : {}));
  });

  app.post("/dashboard/login", async (request, reply) => {
    const state = stateOf(request);
    const form = (request.body ?? {}) as Form;
    const typed = (form.email ?? "").slice(0, 1024);
    const email = normalizeEmail(typed).slice(0, 254);
    const password = (form.password ?? "").slice(0, MAX_PASSWORD_LENGTH + 1);
    // Looked up by the spelling typed: an account stored before addresses were normalised keeps
    // its spelling where another account already had the normalised one (the 20261203-1300
    // migration), and only the typed spelling reaches it.
    const account = email ? await ctx.accounts.findAccountByEmail(typed.slice(0, 254)) : undefined;
    // Failures count per account reached (its stored spelling), so two accounts whose addresses
    // normalise alike do not lock each other out, and spellings of one account share one count.
    const counted = account?.email ?? email;
    const checked = await beginPasswordCheck(ctx, counted, request.ip);
    if (checked) return refuse(reply, checked, login(state.csrf, { email, error: checked.message }));
    let ok: boolean;
    try {
      // Unknown emails cost a full scrypt too, so timing does not reveal which emails exist.
      ok = await passwords.verify(password, account?.passwordHash);
    } catch (error) {
      if (!(error instanceof PasswordHashingBusyError)) throw error;
      await endPasswordCheck(ctx, counted, request.ip, "not checked");
      return refuse(reply, HASHING_BUSY, login(state.csrf, { email, error: HASHING_BUSY.message }));
    }
    // A failure stays counted as beginPasswordCheck counted it.
    const wrong = () => sendPage(reply, login(state.csrf, { email, error: "Email or password is incorrect." }), 401, "invalid_credentials");
    if (!account || !account.passwordHash || !ok) return wrong();
    // Made only if the hash checked is still the account's and it is not disabled: a password
    // change or a disabling that committed during the (queued) scrypt has ended every session.
    const session = await sessions.createIfPasswordIs(account.id, account.passwordHash);
    // The password changed meanwhile: the one given is wrong now.
    if (!session && !(await isDisabledWith(ctx, account, account.passwordHash))) return wrong();
    await endPasswordCheck(ctx, counted, request.ip, "right");
    if (!session) return sendPage(reply, login(state.csrf, { email, error: "This account is disabled. Ask the operator of this service." }), 403, "forbidden");
    // A fresh session on every log-in: nothing chosen before log-in survives it.
    if (state.session) await sessions.destroy(state.session.token);
    setSessionCookie(request, reply, session.token);
    return redirect(reply, "/dashboard");
  });

  app.get("/dashboard/password", async (request, reply) => {
    const state = stateOf(request);
    if (!state.account) return redirect(reply, "/dashboard/login");
    return sendPage(reply, passwordPage({ account: state.account, csrf: state.csrf, changed: (request.query as Form).changed === "1" }));
  });

  /**
   * The account's own password: the current one checked as a log-in is (the same lock, back-off
   * and per-address limit, so this form is no way around them), the new one as at sign-up. Every
   * session of the account ends, and this browser gets a fresh one.
   */
  app.post("/dashboard/password", async (request, reply) => {
    const state = stateOf(request);
    if (!state.account) return redirect(reply, "/dashboard/login");
    const account = state.account;
    const form = (request.body ?? {}) as Form;
    const page = (error: string, errorField: PasswordField, status: 400 | 401) =>
      sendPage(reply, passwordPage({ account, csrf: state.csrf, error, errorField }), status, status === 401 ? "invalid_credentials" : "invalid_request");
    const checked = await beginPasswordCheck(ctx, account.email, request.ip);
    if (checked) return refuse(reply, checked, passwordPage({ account, csrf: state.csrf, error: checked.message }));
    const current = (form.current ?? "").slice(0, MAX_PASSWORD_LENGTH + 1);
    const password = (form.password ?? "").slice(0, MAX_PASSWORD_LENGTH + 1);
    const stored = await ctx.accounts.findAccountByEmail(account.email);
    let ok: boolean;
    try {
      ok = await passwords.verify(current, stored?.passwordHash);
    } catch (error) {
      if (!(error instanceof PasswordHashingBusyError)) throw error;
      await endPasswordCheck(ctx, account.email, request.ip, "not checked");
      return refuse(reply, HASHING_BUSY, passwordPage({ account, csrf: state.csrf, error: HASHING_BUSY.message }));
    }
    if (!ok || stored?.id !== account.id) return page("The current password is incorrect.", "current", 401);
    await endPasswordCheck(ctx, account.email, request.ip, "right");
    if (password !== (form.confirm ?? "")) return page("The two new passwords differ.", "confirm", 400);
    const problem = passwordProblem(password, account.email);
    if (problem) return page(problem, "password", 400);
    let hash: string;
    try {
      hash = await passwords.hash(password);
    } catch (error) {
      if (!(error instanceof PasswordHashingBusyError)) throw error;
      return refuse(reply, HASHING_BUSY, passwordPage({ account, csrf: state.csrf, error: HASHING_BUSY.message }));
    }
    // Ends every session of the account, this one included; this browser gets a new one, unless
    // another change or a disabling has ended that too (as at log-in).
    // Only over the hash the current password was checked against: a change that committed
    // meanwhile (another tab, another request) made that password no longer the account's.
    if (!(await ctx.accounts.setPasswordHash(account.id, hash, { replacing: stored.passwordHash! }))) {
      return page("The password was changed by another request meanwhile; the current password given is no longer the account's.", "current", 401);
    }
    const session = await sessions.createIfPasswordIs(account.id, hash);
    setSessionCookie(request, reply, session?.token);
    return redirect(reply, session ? "/dashboard/password?changed=1" : "/dashboard/login");
  });

  app.post("/dashboard/logout", async (request, reply) => {
    const state = stateOf(request);
    if (state.session) await sessions.destroy(state.session.token);
    setSessionCookie(request, reply, undefined);
    return redirect(reply, "/dashboard/login?loggedOut=1");
  });
}

/** What a log-in or sign-up form sent with an expired form token hears, above the form again. */
export const EXPIRED_FORM_MESSAGE = "This form had expired, so nothing was sent. Enter your password again and send it.";

/**
 * The log-in or sign-up form again, for a post whose form token no longer matches (the pre-session
 * cookie was replaced: another tab, cleared cookies, a restart of the browser), or undefined for
 * any other form: a fresh token, the typed email (and invite code) kept, never the password. It
 * was a bare 403 page that lost what was typed.
 */
export function expiredAuthForm(path: string | undefined, form: Form, csrf: string, mode: AppContext["config"]["signup"]): string | undefined {
  const email = String(form.email ?? "").trim().slice(0, 254);
  if (path === "/dashboard/login") return loginPage(csrf, { email, error: EXPIRED_FORM_MESSAGE, signup: mode });
  if (path !== "/dashboard/signup") return undefined;
  if (mode === "closed") return signupPage(csrf, { mode });
  return signupPage(csrf, { error: EXPIRED_FORM_MESSAGE, email, mode, invite: String(form.invite ?? "").trim().slice(0, 100) });
}

/**
 * Claims a password check for (account, address) before any scrypt: the strict per-pair lock
 * (login-limiter.ts), then the per-address limit and the account's back-off (auth-throttle.ts).
 * Each counts the attempt as a failure now, so attempts sent at once cannot all pass a count that
 * only finished checks would raise; endPasswordCheck takes back what did not fail.
 */
async function beginPasswordCheck(ctx: AppContext, account: string, ip: string): Promise<Refusal | undefined> {
  const { loginLimiter, throttle } = ctx.dashboard;
  const wait = await loginLimiter.claimAttempt(account, ip);
  if (wait > 0) return { status: 429, code: "rate_limit_exceeded", retryAfterMs: wait, message: `Too many failed attempts. Try again in ${describeWait(wait)}.` };
  const refusal = await throttle.beforeLogin(account, ip);
  // Refused before the check: the pair's claim is handed back (the per-address count keeps it).
  if (refusal) await loginLimiter.release(account, ip);
  return refusal;
}

/** A claimed check that did not fail: the password was right (the pair is cleared), or it was never checked. */
async function endPasswordCheck(ctx: AppContext, account: string, ip: string, outcome: "right" | "not checked"): Promise<void> {
  const { loginLimiter, throttle } = ctx.dashboard;
  if (outcome === "right") await loginLimiter.recordSuccess(account, ip);
  else await loginLimiter.release(account, ip);
  await throttle.attemptDidNotFail(account);
}

/** Whether the account is disabled and `passwordHash` still its password: a log-in then hears that it is disabled. */
async function isDisabledWith(ctx: AppContext, account: { id: string; email: string }, passwordHash: string): Promise<boolean> {
  const now = await ctx.accounts.findAccountByEmail(account.email);
  return now?.id === account.id && now.passwordHash === passwordHash && now.disabledAt !== null;
}

const HASHING_BUSY: Refusal = {
  status: 503,
  code: "service_unavailable",
  retryAfterMs: 1000,
  message: "The service is handling too many log-ins and sign-ups right now. Try again in a few seconds.",
};

function refuse(reply: FastifyReply, refusal: Refusal, html: string): FastifyReply {
  reply.header("retry-after", String(Math.ceil(refusal.retryAfterMs / 1000)));
  return sendPage(reply, html, refusal.status, refusal.code);
}
