import { MIN_PASSWORD_LENGTH } from "../password.js";
import { csrfField, esc } from "./html.js";
import { fieldAttrs, layout, notice } from "./layout.js";

/** The new-password rules up front (they were told only after a refused post). */
export const PASSWORD_HINT = `At least ${MIN_PASSWORD_LENGTH} characters; not a common password, a repeated or sequential run ("1234567890"), only digits, or your email.`;

type SignupMode = "open" | "closed" | "invite";

/** The sign-up input an error is about, when it is about one. */
export type SignupField = "email" | "password" | "invite";

export function signupPage(csrf: string, options: { error?: string; errorField?: SignupField; email?: string; mode?: SignupMode; invite?: string } = {}): string {
  const attrs = (field: SignupField, hintId?: string) => fieldAttrs(Boolean(options.error) && options.errorField === field, hintId);
  if (options.mode === "closed") {
    return layout({
      title: "Sign up",
      csrf,
      body: `<section class="card">
  <h1>Sign-up is closed</h1>
  ${notice("info", "New accounts are created by the operator of this service. Ask them for an account.")}
  <p class="muted">Already have an account? <a href="/dashboard/login">Log in</a></p>
</section>`,
    });
  }
  const inviteField = options.mode === "invite"
    ? `<label>Invite code <input type="text" name="invite" autocomplete="off" required value="${esc(options.invite ?? "")}"${attrs("invite")}></label>`
    : "";
  return layout({
    title: "Sign up",
    csrf,
    error: Boolean(options.error),
    body: `<section class="card">
  <h1>Create your account</h1>
  <p class="muted">Get an API key for the moderation API in a minute.</p>
  ${options.error ? notice("error", options.error) : ""}
  <form method="post" action="/dashboard/signup" class="stack">
    ${csrfField(csrf)}
    <label>Email <input type="email" name="email" autocomplete="email" required value="${esc(options.email ?? "")}"${attrs("email")}></label>
    <label>Password <input type="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs("password", "password-hint")}></label>
    <p class="hint" id="password-hint">${esc(PASSWORD_HINT)}</p>
    ${inviteField}
    <button type="submit" class="primary">Sign up</button>
  </form>
  <p class="muted">Already have an account? <a href="/dashboard/login">Log in</a></p>
</section>`,
  });
}

/** What the log-in page offers a visitor without an account, per SIGNUP mode. */
function signupOffer(mode: SignupMode): string {
  if (mode === "closed") return `<p class="muted">Accounts are created by the operator of this service.</p>`;
  if (mode === "invite") return `<p class="muted">Have an invite code? <a href="/dashboard/signup">Create an account</a></p>`;
  return `<p class="muted">New here? <a href="/dashboard/signup">Create an account</a></p>`;
}

export function loginPage(csrf: string, options: { error?: string; email?: string; info?: string; signup?: SignupMode } = {}): string {
  return layout({
    title: "Log in",
    csrf,
    error: Boolean(options.error),
    body: `<section class="card">
  <h1>Log in</h1>
  ${options.info ? notice("info", options.info) : ""}
  ${options.error ? notice("error", options.error) : ""}
  <form method="post" action="/dashboard/login" class="stack">
    ${csrfField(csrf)}
    <label>Email <input type="email" name="email" autocomplete="email" required value="${esc(options.email ?? "")}"></label>
    <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
    <button type="submit" class="primary">Log in</button>
  </form>
  ${signupOffer(options.signup ?? "open")}
</section>`,
  });
}

export function errorPage(csrf: string, title: string, message: string): string {
  return layout({ title, csrf, error: true, body: `<section class="card"><h1>${esc(title)}</h1>${notice("error", message)}<p><a href="/dashboard">Back to the dashboard</a></p></section>` });
}
