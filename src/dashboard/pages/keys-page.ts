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
        <form method="post" action="/dashboard/keys/${encodeURIComponent(k.id)}/rotate" data-confirm="Rotate “${esc(k.name)}” (${esc(k.prefix)}…)? The current secret stops working now.">${csrfField(options.csrf)}<button type="submit" aria-label="Rotate key ${esc(k.name)} (${esc(k.prefix)}…)">Rotate</button></form>
        <form method="post" action="/dashboard/keys/${encodeURIComponent(k.id)}/revoke" data-confirm="Revoke “${esc(k.name)}” (${esc(k.prefix)}…)? Calls using it will be refused.">${csrfField(options.csrf)}<button type="submit" class="danger" aria-label="Revoke key ${esc(k.name)} (${esc(k.prefix)}…)">Revoke</button></form>`
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
  const curl = `curl -H "X-API-Key: ${key.key}" -H "content-type: application/json" -d '{"input":[{"type":"text","text":"hello"}]}' ${options.apiOrigin}/v1/moderate`;
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
