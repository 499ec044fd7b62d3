import type { Account } from "../../accounts/account-store.js";
import { CATEGORY_IDS } from "../../classifiers/categories.js";
import type { PolicyChange } from "../../policies/policy-store.js";
import { csrfField, esc, formatTime } from "./html.js";
import { fieldAttrs, layout, notice } from "./layout.js";

/** The form's values as the user typed them (kept on a refusal or a try, so nothing is lost). */
export interface PolicyForm {
  thresholds: Record<string, string>;
  block: string;
  allow: string;
  text: string;
}

export interface TryResult {
  categories: Record<string, { score: number; flagged: boolean }>;
  flagged: boolean;
  /** The text's detected language, and why the model did not read it, or all of it (as the API says). */
  language?: string;
  notEvaluated?: { reason: string; language: string };
}

/** What the page says besides the form: a refusal (and the input it names), a save's outcome, a try's result. */
export interface PolicyPageExtras {
  error?: string;
  /** The id of the input the error is about: marked invalid, described by the error, focused. */
  errorField?: string;
  savedVersion?: number;
  /** A save of the policy already in force (0: none is), which stored nothing. */
  unchangedVersion?: number;
  tried?: TryResult;
}

/** The try's verdict in words: never "not flagged" for text the model did not read. */
function verdictOf(tried: TryResult): string {
  const verdict = tried.flagged ? "flagged" : "not flagged";
  const skipped = tried.notEvaluated;
  if (!skipped) return verdict;
  switch (skipped.reason) {
    case "unsupported_language":
      // Flagged all the same (a block-list term, or English abuse read as another language).
      return tried.flagged ? `flagged; the rest not evaluated (the model does not cover language ${skipped.language})` : `not evaluated (the model does not cover language ${skipped.language})`;
    case "partly_unsupported_language":
      return `${verdict}; partly not evaluated (language ${skipped.language} not covered)`;
    default:
      return `not evaluated (${skipped.reason})`;
  }
}

/**
 * The policy page: per category a threshold (blank: the model decides; a number 0 to 1; or off),
 * the block list (one `term | category` a line, category custom when left out), the allow list,
 * a "try it" box that shows scores and flags under the draft without saving, and every change.
 */
export function policyPage(options: {
  account: Account; csrf: string; form: PolicyForm; version: number | undefined; changes: PolicyChange[];
  /** The model's own flag threshold per category, shown as each blank input's default. */
  defaults: Partial<Record<string, number>>;
} & PolicyPageExtras): string {
  const { form } = options;
  const attrs = (id: string) => fieldAttrs(options.error !== undefined && options.errorField === id);
  const defaultOf = (id: string) => {
    const value = options.defaults[id];
    return value === undefined ? "model default" : `default ${value.toFixed(2)}`;
  };
  const rows = CATEGORY_IDS.map((id) => `<label>${esc(id)} <input name="t_${id}" id="t_${id}" value="${esc(form.thresholds[id] ?? "")}" placeholder="${esc(defaultOf(id))}" inputmode="decimal" size="8"${attrs(`t_${id}`)}> <span class="muted" data-default="${esc(id)}">${esc(defaultOf(id))}</span></label>`).join("\n");
  const tried = options.tried
    ? `<section class="card" id="try-result" tabindex="-1" role="status" aria-labelledby="try-result-title"><h2 id="try-result-title">Under this draft: ${esc(verdictOf(options.tried))}</h2>${options.tried.language ? `<p class="muted" id="try-language">Detected language: ${esc(options.tried.language)}</p>` : ""}<table><thead><tr><th>category</th><th>score</th><th>flagged</th></tr></thead><tbody>
${Object.entries(options.tried.categories).map(([id, c]) => `<tr data-category="${esc(id)}"><td>${esc(id)}</td><td>${c.score.toFixed(3)}</td><td class="flag">${c.flagged ? "yes" : "no"}</td></tr>`).join("\n")}
</tbody></table></section>`
    : "";
  const history = options.changes.length === 0
    ? `<p class="muted">No changes yet: the model's thresholds decide.</p>`
    : `<table id="policy-changes"><thead><tr><th>when</th><th>who</th><th>scope</th><th>version</th></tr></thead><tbody>
${options.changes.map((c) => `<tr><td>${esc(formatTime(c.changedAt))}</td><td>${esc(c.changedBy)}</td><td>${c.keyId ? `key ${esc(c.keyId)}` : "account"}</td><td>${c.previousVersion} → ${c.version}${c.removed ? " (removed)" : ""}</td></tr>`).join("\n")}
</tbody></table>`;
  return layout({
    title: "Policy",
    account: options.account,
    csrf: options.csrf,
    active: "policy",
    error: options.error !== undefined,
    body: `<h1>Moderation policy</h1>
${options.error ? notice("error", options.error) : ""}${outcomeNotice(options)}
<p class="muted">A policy changes which categories are flagged, never the scores. Current version: <span id="policy-version">${options.version ?? "none"}</span>.</p>
<form method="post" action="/dashboard/policy" class="stack" id="policy-form">
  ${csrfField(options.csrf)}
  <button type="submit" name="action" value="save" hidden tabindex="-1" aria-hidden="true"></button>
  <section class="card"><h2>Thresholds</h2><p class="muted">Flag at or above a score from 0 to 1, or <code>off</code>; blank keeps the model's own threshold (shown beside each). A threshold keeps the model's reading: what it explained away (a negated claim) stays unflagged, and what its rules flagged stays flagged unless the threshold is higher than the model's.</p>
  <div class="stack">${rows}</div></section>
  <section class="card"><h2 id="block-title">Block list</h2><p class="muted">One term a line; <code>term | category</code> flags that category, else <code>custom</code>. Spelling tricks (l33t, s p a c e s, look-alikes) still match.</p>
  <textarea name="block" id="block" rows="5" aria-labelledby="block-title"${attrs("block")}>${esc(form.block)}</textarea></section>
  <section class="card"><h2 id="allow-title">Allow list</h2><p class="muted">One term a line: never counts as evidence on its own.</p>
  <textarea name="allow" id="allow" rows="3" aria-labelledby="allow-title"${attrs("allow")}>${esc(form.allow)}</textarea></section>
  <section class="card"><h2 id="try-title">Try it</h2><textarea name="text" id="try-text" rows="3" aria-labelledby="try-title"${attrs("try-text")} placeholder="A text to moderate under the draft">${esc(form.text)}</textarea>
  <button type="submit" name="action" value="try" id="policy-try" formaction="/dashboard/policy#try-result">Try draft</button></section>
  <button type="submit" name="action" value="save" class="primary" id="policy-save">Save policy</button>
</form>
${tried}
<section class="card"><h2>Changes</h2>${history}</section>`,
  });
}

/** After a save: the version it made, or that nothing changed. A later save by someone else is named too. */
function outcomeNotice(options: PolicyPageExtras & { version: number | undefined }): string {
  const inForce = options.version ?? 0;
  if (options.savedVersion !== undefined) {
    const later = inForce > options.savedVersion ? ` Version ${inForce} has been saved since.` : "";
    return notice("success", `Saved as version ${options.savedVersion}. It applies to your next request.${later}`);
  }
  if (options.unchangedVersion === undefined) return "";
  return notice("info", options.unchangedVersion === 0
    ? "No change: no policy is set, and the model's thresholds decide."
    : `No change: version ${options.unchangedVersion} is in force.`);
}
