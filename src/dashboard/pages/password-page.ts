import type { Account } from "../../accounts/account-store.js";
import { MIN_PASSWORD_LENGTH } from "../password.js";
import { csrfField } from "./html.js";
import { layout, notice } from "./layout.js";

/** Changing the account's own password: the current one, and the new one twice. */
export function passwordPage(options: { account: Account; csrf: string; error?: string; changed?: boolean }): string {
  return layout({
    title: "Password",
    account: options.account,
    csrf: options.csrf,
    body: `<section class="card">
  <h1>Change your password</h1>
  <p class="muted">Every other session of this account ends: other browsers are logged out. API keys are not affected.</p>
  ${options.changed ? notice("success", "Your password is changed. Other sessions have ended.") : ""}
  ${options.error ? notice("error", options.error) : ""}
  <form method="post" action="/dashboard/password" class="stack">
    ${csrfField(options.csrf)}
    <label>Current password <input type="password" name="current" autocomplete="current-password" required></label>
    <label>New password <input type="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"></label>
    <label>New password again <input type="password" name="confirm" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}"></label>
    <p class="hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
    <button type="submit" class="primary" id="password-save">Change password</button>
  </form>
</section>`,
  });
}
