import { BUCKET_MS, bucketStart, type Granularity } from "../../metering/usage-counts.js";
import type { UsageBucket } from "../../metering/usage-store.js";
import { esc, formatNumber } from "./html.js";

export interface ChartPoint {
  start: number;
  requests: number;
  flagged: number;
}

/** Every bucket of the last `count` periods, zeros included, so the bars line up with time. */
export function fillBuckets(buckets: UsageBucket[], granularity: Granularity, now: number, count: number): ChartPoint[] {
  const byStart = new Map(buckets.map((b) => [b.start, b.counts]));
  const size = BUCKET_MS[granularity];
  const last = bucketStart(now, granularity);
  const points: ChartPoint[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const start = last - i * size;
    const counts = byStart.get(start);
    points.push({ start, requests: counts?.requests ?? 0, flagged: counts?.flagged ?? 0 });
  }
  return points;
}

const label = (start: number, granularity: Granularity) =>
  granularity === "day" ? new Date(start).toISOString().slice(5, 10) : new Date(start).toISOString().slice(11, 16);

/** Tick labels on a wide screen; on a phone every other one is hidden (app.css `.tick.minor`). */
const TICKS = 6;

/**
 * Requests (and the flagged share of them) as an inline SVG bar chart: no script, no library. The
 * bars stretch with their container (a viewBox drawn without keeping its aspect, the axis its
 * bottom border); the labels are not in it: the y axis's are HTML beside it, the x axis's a second
 * SVG without a viewBox, placed in percent, so they keep their CSS size at any width. In the scaled
 * viewBox they were 13 units, about 5 px on a 360 px phone (found by an audit).
 */
export function usageChart(points: ChartPoint[], granularity: Granularity, title: string): string {
  const width = 640;
  const height = 200;
  const top = 10;
  const max = Math.max(1, ...points.map((p) => p.requests));
  const slot = width / Math.max(1, points.length);
  const barWidth = Math.max(1, slot * 0.7);
  const y = (v: number) => height - (v / max) * (height - top);
  const bars = points.map((p, i) => {
    const x = i * slot + (slot - barWidth) / 2;
    const tip = `${label(p.start, granularity)}: ${formatNumber(p.requests)} requests, ${formatNumber(p.flagged)} flagged`;
    // The flagged bar is half as wide, centred in its requests bar: told apart by shape too (WCAG 1.4.1).
    const flaggedX = x + barWidth / 4;
    return `<g><title>${esc(tip)}</title>
      <rect class="bar-requests" x="${x.toFixed(1)}" y="${y(p.requests).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(height - y(p.requests)).toFixed(1)}"></rect>
      <rect class="bar-flagged" x="${flaggedX.toFixed(1)}" y="${y(p.flagged).toFixed(1)}" width="${(barWidth / 2).toFixed(1)}" height="${(height - y(p.flagged)).toFixed(1)}"></rect></g>`;
  }).join("");
  const every = Math.ceil(points.length / TICKS);
  const ticks = points.map((p, i) => i % every === 0
    ? `<text class="tick${(i / every) % 2 === 1 ? " minor" : ""}" x="${(((i + 0.5) * slot) / width * 100).toFixed(2)}%" y="1.1em" text-anchor="middle">${esc(label(p.start, granularity))}</text>` : "").join("");
  return `<figure class="chart">
  <div class="chart-body">
    <div class="y-ticks" aria-hidden="true"><span class="tick">${esc(formatNumber(max))}</span><span class="tick">0</span></div>
    <div class="chart-plot">
      <svg class="chart-bars" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${esc(title)} (UTC)">
        ${bars}
      </svg>
      <svg class="x-ticks" aria-hidden="true">${ticks}</svg>
    </div>
  </div>
  <figcaption><span class="swatch requests"></span>Requests <span class="swatch flagged"></span>Flagged (the narrow bar) <span class="chart-utc">· dates and hours in UTC</span></figcaption>
</figure>`;
}
