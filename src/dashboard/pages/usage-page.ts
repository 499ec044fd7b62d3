import type { Account } from "../../accounts/account-store.js";
import type { UsageCounts } from "../../metering/usage-counts.js";
import { formatNumber } from "./html.js";
import { layout } from "./layout.js";
import { totalsGrid } from "./overview-page.js";
import { usageChart, type ChartPoint } from "./usage-chart.js";

export function usagePage(options: { account: Account; csrf: string; granularity: "day" | "hour"; totals: UsageCounts; points: ChartPoint[] }): string {
  const span = options.granularity === "day" ? "last 30 days" : "last 48 hours";
  const tab = (g: "day" | "hour", text: string) =>
    `<a href="/dashboard/usage?granularity=${g}"${g === options.granularity ? ' aria-current="page"' : ""}>${text}</a>`;
  const rows = [...options.points].reverse().filter((p) => p.requests > 0).map((p) =>
    `<tr><td>${new Date(p.start).toISOString().slice(0, options.granularity === "day" ? 10 : 16).replace("T", " ")}</td><td>${formatNumber(p.requests)}</td><td>${formatNumber(p.flagged)}</td></tr>`).join("");
  return layout({
    title: "Usage",
    account: options.account,
    csrf: options.csrf,
    active: "usage",
    body: `<h1>Usage</h1>
<nav class="tabs" aria-label="Granularity">${tab("day", "Per day")}${tab("hour", "Per hour")}</nav>
<section class="card">
  <h2>Totals, ${span}</h2>
  ${totalsGrid(options.totals)}
  ${usageChart(options.points, options.granularity, `Requests and flagged per ${options.granularity}, ${span}`)}
  <p class="hint">Times are UTC. Counts reach this page within about a second. The same numbers are at <code>GET /v1/usage</code> with an API key.</p>
</section>
<section class="card">
  <details data-open-narrow><summary>Table</summary>
  ${rows ? `<table class="data"><thead><tr><th>${options.granularity === "day" ? "Day" : "Hour"}</th><th>Requests</th><th>Flagged</th></tr></thead><tbody>${rows}</tbody></table>` : `<p class="muted">No requests in this period.</p>`}
  </details>
</section>`,
  });
}
