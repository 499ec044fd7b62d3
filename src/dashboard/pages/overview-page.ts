import type { Account } from "../../accounts/account-store.js";
import type { Granularity, UsageCounts } from "../../metering/usage-counts.js";
import { esc, formatNumber } from "./html.js";
import { layout } from "./layout.js";
import { usageChart, type ChartPoint } from "./usage-chart.js";

export function totalsGrid(totals: UsageCounts): string {
  const cell = (id: string, label: string, value: number) =>
    `<div class="stat"><span class="stat-value" id="total-${id}">${formatNumber(value)}</span><span class="stat-label">${label}</span></div>`;
  return `<div class="stats">
    ${cell("requests", "Requests", totals.requests)}
    ${cell("flagged", "Flagged", totals.flagged)}
    ${cell("text-items", "Text items", totals.textItems)}
    ${cell("image-items", "Image items", totals.imageItems)}
    ${cell("deep-analyses", "Deep image analyses", totals.deepAnalyses)}
  </div>`;
}

export function overviewPage(options: { account: Account; csrf: string; activeKeys: number; totals: UsageCounts; points: ChartPoint[] }): string {
  const { account } = options;
  return layout({
    title: "Overview",
    account,
    csrf: options.csrf,
    active: "overview",
    body: `<h1>Overview</h1>
<div class="grid two">
  <section class="card">
    <h2>Plan</h2>
    <p class="plan"><span class="badge plan-name" id="plan-name">${esc(account.plan)}</span>
      <span id="plan-limit">${formatNumber(account.requestsPerMinute)} requests per minute</span></p>
    <p class="hint">Plans are changed by an operator (<code>modctl plan set</code>).</p>
    <p>Account id <code id="account-id">${esc(account.id)}</code>: every answer to your keys is signed for it (<code>moderation-account</code>; docs/signing.md).</p>
  </section>
  <section class="card">
    <h2>API keys</h2>
    <p><strong id="active-key-count">${options.activeKeys}</strong> active key${options.activeKeys === 1 ? "" : "s"}.</p>
    <p><a class="button" href="/dashboard/keys">Manage keys</a></p>
  </section>
</div>
<section class="card">
  <h2>Last 30 days</h2>
  ${totalsGrid(options.totals)}
  ${usageChart(options.points, "day" satisfies Granularity, "Requests and flagged per day, last 30 days")}
</section>`,
  });
}
