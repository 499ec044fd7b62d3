import type { Account } from "../../accounts/account-store.js";
import { layout } from "./layout.js";

/** The page is static; assets/app.js sends the request from the browser, with the key the user pastes. */
export function playgroundPage(options: { account: Account; csrf: string }): string {
  return layout({
    title: "Playground",
    account: options.account,
    csrf: options.csrf,
    active: "playground",
    body: `<h1>Playground</h1>
<section class="card">
  <p class="muted">Sends a request to <code>POST /v1/moderate</code> from your browser. Paste one of your keys: secrets are never stored, so the dashboard cannot fill it in. Requests made here count towards your usage.</p>
  <noscript><p class="notice error">The playground needs JavaScript: it sends the request from your browser.</p></noscript>
  <!-- Sent by assets/app.js only. Its button is enabled by the script and the form posts nowhere
       useful without it: a bare form submitted the key as a GET, into the URL and history. -->
  <form id="playground" class="stack" method="post" action="/dashboard/playground">
    <label>API key <input type="password" name="key" id="pg-key" autocomplete="off" required placeholder="mod_…"></label>
    <label>Text <textarea name="text" id="pg-text" rows="4" placeholder="Type something to check"></textarea></label>
    <label>Image <input type="file" name="image" id="pg-image" accept="image/png,image/jpeg,image/gif,image/webp"></label>
    <label class="check"><input type="checkbox" name="analyze" id="pg-analyze"> Deep image analysis</label>
    <button type="submit" class="primary" id="pg-send" disabled>Moderate</button>
  </form>
</section>
<section class="card" id="pg-result-card" hidden>
  <h2>Result</h2>
  <div id="pg-result" aria-live="polite"></div>
</section>`,
  });
}
