import { newFormToken } from "../key-once.js";
import type { Account, ApiKeyInfo } from "../../accounts/account-store.js";
import { csrfField, esc, formatTime } from "./html.js";
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
        <form method="post" action="/dashboard/keys/${encodeURIComponent(k.id)}/rotate" data-confirm="Rotate “${esc(k.name)}”? The current secret stops working now.">${csrfField(options.csrf)}<button type="submit">Rotate</button></form>
        <form method="post" action="/dashboard/keys/${encodeURIComponent(k.id)}/revoke" data-confirm="Revoke “${esc(k.name)}”? Calls using it will be refused.">${csrfField(options.csrf)}<button type="submit" class="danger">Revoke</button></form>`
        : `<span class="badge">revoked ${esc(formatTime(k.revokedAt))}</span>`}</td>
    </tr>`).join("");
  const table = (keys: ApiKeyInfo[], id: string) => `<table class="keys" id="${id}">
    <thead><tr><th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th></th></tr></thead>
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
  <p class="hint">Send the key in the <code>X-API-Key</code> header. Plan <strong>${esc(options.account.plan)}</strong>: ${options.account.requestsPerMinute} requests per minute per account.</p>
</section>
<section class="card">
  <h2>Active keys</h2>
  ${active.length ? table(active, "active-keys") : `<p class="muted" id="no-keys">No active keys yet.</p>`}
</section>
${revoked.length ? `<section class="card"><details><summary>Revoked keys (${revoked.length})</summary>${table(revoked, "revoked-keys")}</details></section>` : ""}`,
  });
}

/** Shown once, right after creation or rotation: the only time the secret exists outside the caller's hands. */
export function newKeyPage(options: { account: Account; csrf: string; key: ApiKeyInfo & { key: string }; rotatedFrom?: ApiKeyInfo }): string {
  return layout({
    title: "Your new key",
    account: options.account,
    csrf: options.csrf,
    active: "keys",
    body: `<h1>${options.rotatedFrom ? "Key rotated" : "Key created"}</h1>
<section class="card">
  ${options.rotatedFrom ? notice("info", `The old secret (${options.rotatedFrom.prefix}…) is revoked.`) : ""}
  <p>This is the secret of <strong>${esc(options.key.name)}</strong>. Copy it now: it is not stored and will not be shown again.</p>
  <div class="secret"><code id="new-key-secret">${esc(options.key.key)}</code>
    <button type="button" class="primary" data-copy="#new-key-secret">Copy</button></div>
  <p class="hint">Try it: <code>curl -H "X-API-Key: …" -H "content-type: application/json" -d '{"input":[{"type":"text","text":"hello"}]}' /v1/moderate</code></p>
  <p><a href="/dashboard/keys" class="button">Done</a> <a href="/dashboard/playground">Open the playground</a></p>
</section>`,
  });
}
