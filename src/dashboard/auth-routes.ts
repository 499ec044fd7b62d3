import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { redirect, sendPage } from "./dashboard-routes.js";
import { loginPage, signupPage } from "./pages/auth-pages.js";
import { dummyPasswordHash, hashPassword, MAX_PASSWORD_LENGTH, passwordProblem, verifyPassword } from "./password.js";
import { setSessionCookie, stateOf } from "./request-state.js";

type Form = Record<string, string | undefined>;

/** Sign-up, log-in and log-out. Self-service accounts start on the free plan. */
export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { sessions, loginLimiter, invites } = ctx.dashboard;
  const mode = ctx.config.signup;

  app.get("/dashboard/signup", async (request, reply) => {
    const state = stateOf(request);
    return state.account ? redirect(reply, "/dashboard") : sendPage(reply, signupPage(state.csrf, { mode }), mode === "closed" ? 403 : 200);
  });

  app.post("/dashboard/signup", async (request, reply) => {
    const state = stateOf(request);
    if (mode === "closed") return sendPage(reply, signupPage(state.csrf, { mode }), 403);
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? "").trim();
    const password = form.password ?? "";
    const invite = (form.invite ?? "").trim().slice(0, 100);
    const problem = passwordProblem(password);
    if (problem) return sendPage(reply, signupPage(state.csrf, { error: problem, email, mode, invite }), 400);
    // The code is taken before the account exists and handed back if the sign-up fails.
    if (mode === "invite" && !(await invites.claim(invite))) {
      return sendPage(reply, signupPage(state.csrf, { error: "This invite code is unknown, used or expired.", email, mode, invite }), 403);
    }
    let accountId: string | undefined;
    try {
      const account = await ctx.accounts.createAccount({ email, plan: "free", passwordHash: await hashPassword(password) });
      accountId = account.id;
      const session = await sessions.create(account.id);
      setSessionCookie(request, reply, session.token);
      return redirect(reply, "/dashboard/keys?welcome=1");
    } catch (error) {
      if (error instanceof ApiError && (error.code === "invalid_request" || error.code === "email_taken")) {
        return sendPage(reply, signupPage(state.csrf, { error: error.message, email, mode, invite }), error.httpStatus);
      }
      throw error;
    } finally {
      if (mode === "invite") await invites.settle(invite, accountId);
    }
  });

  app.get("/dashboard/login", async (request, reply) => {
    const state = stateOf(request);
    if (state.account) return redirect(reply, "/dashboard");
    const info = (request.query as Form).loggedOut ? "You are logged out." : undefined;
    return sendPage(reply, loginPage(state.csrf, info ? { info } : {}));
  });

  app.post("/dashboard/login", async (request, reply) => {
    const state = stateOf(request);
    const form = (request.body ?? {}) as Form;
    const email = (form.email ?? "").trim().toLowerCase().slice(0, 254);
    const password = (form.password ?? "").slice(0, MAX_PASSWORD_LENGTH + 1);
    const wait = await loginLimiter.retryAfterMs(email, request.ip);
    if (wait > 0) {
      reply.header("retry-after", String(Math.ceil(wait / 1000)));
      return sendPage(reply, loginPage(state.csrf, { email, error: `Too many failed attempts. Try again in ${Math.ceil(wait / 60_000)} minutes.` }), 429);
    }
    const account = email ? await ctx.accounts.findAccountByEmail(email) : undefined;
    // Unknown emails cost a full scrypt too, so timing does not reveal which emails exist.
    const ok = await verifyPassword(password, account?.passwordHash ?? (await dummyPasswordHash()));
    if (!account || !account.passwordHash || !ok) {
      await loginLimiter.recordFailure(email, request.ip);
      return sendPage(reply, loginPage(state.csrf, { email, error: "Email or password is incorrect." }), 401);
    }
    if (account.disabledAt !== null) {
      return sendPage(reply, loginPage(state.csrf, { email, error: "This account is disabled. Ask the operator of this service." }), 403);
    }
    await loginLimiter.recordSuccess(email, request.ip);
    // A fresh session on every log-in: nothing chosen before log-in survives it.
    if (state.session) await sessions.destroy(state.session.token);
    const session = await sessions.create(account.id);
    setSessionCookie(request, reply, session.token);
    return redirect(reply, "/dashboard");
  });

  app.post("/dashboard/logout", async (request, reply) => {
    const state = stateOf(request);
    if (state.session) await sessions.destroy(state.session.token);
    setSessionCookie(request, reply, undefined);
    return redirect(reply, "/dashboard/login?loggedOut=1");
  });
}
