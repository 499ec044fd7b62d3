import type { Account } from "../../accounts/account-store.js";
import { MIN_PASSWORD_LENGTH } from "../password.js";
import { csrfField, esc } from "./html.js";
import { PASSWORD_HINT } from "./auth-pages.js";
import { fieldAttrs, layout, notice } from "./layout.js";

/** The password-form input an error is about. */
export type PasswordField = "current" | "password" | "confirm";

/** Changing the account's own password: the current one, and the new one twice. */
export function passwordPage(options: { account: Account; csrf: string; error?: string; errorField?: PasswordField; changed?: boolean }): string {
  const attrs = (field: PasswordField, hintId?: string) => fieldAttrs(Boolean(options.error) && options.errorField === field, hintId);
  return layout({
    title: "Password",
    account: options.account,
    csrf: options.csrf,
    error: Boolean(options.error),
    body: `<section class="card">
  <h1>Change your password</h1>
  <p class="muted">Every other session of this account ends: other browsers are logged out. API keys are not affected.</p>
  ${options.changed ? notice("success", "Your password is changed. Other sessions have ended.") : ""}
  ${options.error ? notice("error", options.error) : ""}
  <form method="post" action="/dashboard/password" class="stack">
    ${csrfField(options.csrf)}
    <label>Current password <input type="password" name="current" autocomplete="current-password" required${attrs("current")}></label>
    <label>New password <input type="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs("password", "password-hint")}></label>
    <label>New password again <input type="password" name="confirm" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"${attrs("confirm")}></label>
    <p class="hint" id="password-hint">${esc(PASSWORD_HINT)}</p>
    <button type="submit" class="primary" id="password-save">Change password</button>
  </form>
</section>`,
  });
}
