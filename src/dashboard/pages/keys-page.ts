import { newFormToken } from "../key-once.js";
import type { Account, ApiKeyInfo } from "../../accounts/account-store.js";
import { csrfField, esc, formatNumber, formatTime } from "./html.js";
import { layout, notice } from "./layout.js";

export function keysPage(options: { account: Account; csrf: string; keys: ApiKeyInfo[]; notice?: string | undefined }): string {
  const active = options.keys.filter((k) => k.revokedAt === null);
  const revoked = options.keys.filter((k) => k.revokedAt !== null);
  const rows = (keys: ApiKeyInfo[]) => keys.map((k) => `<tr data-key-id="${esc(k.id)}">
      <td data-label="Name">${esc(k.name)}</td>
      <td data-label="Prefix"><code>${esc(k.prefix)}…</code></td>
      <td data-label="Created">${esc(formatTime(k.createdAt))}</td>
      <td data-label="Last used">${esc(formatTime(k.lastUsedAt))}</td>
      <td data-label="" class="actions">${k.revokedAt === null ? `
        ${confirmFirstForm(k, "rotate", options.csrf)}
        ${confirmFirstForm(k, "revoke", options.csrf)}`
        : `<span class="badge">revoked ${esc(formatTime(k.revokedAt))}</span>`}</td>
    </tr>`).join("");
  const table = (keys: ApiKeyInfo[], id: string) => `<table class="keys" id="${id}">
    <thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${rows(keys)}</tbody></table>`;
  return layout({
    title: "API keys",
    account: options.account,
    csrf: options.csrf,
    active: "keys",
    body: `<h1>API keys</h1>
${options.notice ? notice("success", options.notice) : ""}
<section class="card">
  <h2>Create a key</h2>
  <form method="post" action="/dashboard/keys" class="inline">
    ${csrfField(options.csrf)}
    <input type="hidden" name="once" value="${newFormToken()}">
    <label>Name <input name="name" maxlength="100" placeholder="e.g. production" required></label>
    <button type="submit" class="primary">Create key</button>
  </form>
  <p class="hint">Send the key in the <code>X-API-Key</code> header. Plan <strong>${esc(options.account.plan)}</strong>: ${formatNumber(options.account.requestsPerMinute)} requests per minute per account.</p>
</section>
<section class="card">
  <h2>Active keys</h2>
  ${active.length ? table(active, "active-keys") : `<p class="muted" id="no-keys">No active keys yet.</p>`}
</section>
${revoked.length ? `<section class="card"><details><summary>Revoked keys (${revoked.length})</summary>${table(revoked, "revoked-keys")}</details></section>` : ""}`,
  });
}

const ACTIONS = {
  rotate: { verb: "Rotate", consequence: "The current secret stops working now; the new one is shown once.", danger: false },
  revoke: { verb: "Revoke", consequence: "Calls using it will be refused.", danger: true },
} as const;

export type KeyAction = keyof typeof ACTIONS;

/** "Revoke “production” (mod_abc…)?": the key's name and prefix, since two keys may share a name. */
const question = (key: ApiKeyInfo, action: KeyAction) => `${ACTIONS[action].verb} “${key.name}” (${key.prefix}…)?`;

/**
 * A key's Rotate or Revoke button. Without JavaScript it asks first: the form GETs the
 * confirmation page (confirmKeyActionPage), and its CSRF field is disabled so the token never goes
 * into a URL. app.js, once window.confirm says yes, turns the form into the POST itself (method
 * post, the field enabled), so one dialog is all it takes.
 */
function confirmFirstForm(key: ApiKeyInfo, action: KeyAction, csrf: string): string {
  const { verb, consequence, danger } = ACTIONS[action];
  return `<form method="get" action="/dashboard/keys/${encodeURIComponent(key.id)}/${action}" data-confirm="${esc(`${question(key, action)} ${consequence}`)}" data-confirmed-method="post">`
    + `<input type="hidden" name="_csrf" value="${esc(csrf)}" disabled data-confirmed-only>`
    + `<button type="submit"${danger ? ' class="danger"' : ""} aria-label="${verb} key ${esc(key.name)} (${esc(key.prefix)}…)">${verb}</button></form>`;
}

/**
 * The question a Rotate or Revoke button leads to without JavaScript (GET: it changes nothing):
 * the key by name and prefix, a button that posts the action, and Cancel back to the list.
 */
export function confirmKeyActionPage(account: Account, csrf: string, key: ApiKeyInfo, action: KeyAction): string {
  const { verb, consequence, danger } = ACTIONS[action];
  return layout({
    title: `${verb} key`,
    account,
    csrf,
    active: "keys",
    body: `<section class="card">
  <h1 id="confirm-question">${esc(question(key, action))}</h1>
  <p>${esc(consequence)}</p>
  <form method="post" action="/dashboard/keys/${encodeURIComponent(key.id)}/${action}" class="inline confirm">${csrfField(csrf)}
    <button type="submit" class="${danger ? "danger" : "primary"}">${verb} key</button>
    <a href="/dashboard/keys">Cancel</a>
  </form>
</section>`,
  });
}

/**
 * Shown once, right after creation or rotation: the only time the secret exists outside the caller's
 * hands. `replaced` is the key an earlier post of the same form made (a reload sends the form
 * again, key-once.ts), revoked by this post: its secret may be the one the user copied.
 */
export function newKeyPage(options: {
  account: Account; csrf: string; key: ApiKeyInfo & { key: string }; rotatedFrom?: ApiKeyInfo; replaced?: ApiKeyInfo | undefined;
  /** The dashboard's own origin, where /v1/moderate answers too (the curl line is pasted as is). */
  apiOrigin: string;
}): string {
  const { key, rotatedFrom, replaced } = options;
  const curl = `curl -s -H "X-API-Key: ${key.key}" -H "content-type: application/json" -d '{"input":[{"type":"text","text":"hello"}]}' ${options.apiOrigin}/v1/moderate`;
  return layout({
    title: "Your new key",
    account: options.account,
    csrf: options.csrf,
    active: "keys",
    body: `<h1>${rotatedFrom ? "Key rotated" : "Key created"}</h1>
${replaced ? `<p class="notice error" role="alert" id="form-resent">This form was sent again: the key shown before (<code>${esc(replaced.prefix)}…</code>) is revoked; use this one.</p>` : ""}
<section class="card">
  ${rotatedFrom ? notice("info", `The old secret (${rotatedFrom.prefix}…) is revoked.`) : ""}
  <p>This is the secret of <strong>${esc(key.name)}</strong>. Copy it now: it is not stored and will not be shown again.</p>
  <div class="secret"><code id="new-key-secret">${esc(key.key)}</code>
    <button type="button" class="primary" data-copy="#new-key-secret" hidden>Copy</button> <span class="copy-status" aria-live="polite"></span></div>
  <p class="hint">Try it: <code id="curl-example">${esc(curl)}</code></p>
  <p><a href="/dashboard/keys" class="button">Done</a> <a href="/dashboard/playground">Open the playground</a></p>
</section>`,
  });
}

/**
 * A rotation posted again for a key it already revoked (a reload of the "Key rotated" page, a
 * double click): the new key is live, but its secret was shown once, on the first answer.
 */
export function alreadyRotatedPage(account: Account, csrf: string, key: ApiKeyInfo, successor: ApiKeyInfo | undefined): string {
  const message = successor
    ? `This key (${key.prefix}…) was already rotated; its new secret (${successor.prefix}…) was shown once. Rotate the new key if you did not copy it.`
    : `This key (${key.prefix}…) was already rotated or revoked. If a rotation made a new key, its secret was shown once: rotate the new key if you did not copy it.`;
  const title = successor ? "Key already rotated" : "Key already revoked";
  return layout({ title, account, csrf, active: "keys", body: `<section class="card"><h1>${esc(title)}</h1>${notice("info", message)}<p><a href="/dashboard/keys" class="button">Go to API keys</a></p></section>` });
}
