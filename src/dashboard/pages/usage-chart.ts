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

/**
 * Requests (and the flagged share of them) as an inline SVG bar chart: no script, no
 * library, scales with its container through the viewBox.
 */
export function usageChart(points: ChartPoint[], granularity: Granularity, title: string): string {
  const width = 640;
  const height = 200;
  const pad = { left: 36, bottom: 22, top: 10 };
  const max = Math.max(1, ...points.map((p) => p.requests));
  const slot = (width - pad.left) / Math.max(1, points.length);
  const barWidth = Math.max(1, slot * 0.7);
  const y = (v: number) => height - pad.bottom - (v / max) * (height - pad.bottom - pad.top);
  const bars = points.map((p, i) => {
    const x = pad.left + i * slot + (slot - barWidth) / 2;
    const tip = `${label(p.start, granularity)}: ${formatNumber(p.requests)} requests, ${formatNumber(p.flagged)} flagged`;
    // The flagged bar is half as wide, centred in its requests bar: told apart by shape too (WCAG 1.4.1).
    const flaggedX = x + barWidth / 4;
    return `<g><title>${esc(tip)}</title>
      <rect class="bar-requests" x="${x.toFixed(1)}" y="${y(p.requests).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(height - pad.bottom - y(p.requests)).toFixed(1)}"></rect>
      <rect class="bar-flagged" x="${flaggedX.toFixed(1)}" y="${y(p.flagged).toFixed(1)}" width="${(barWidth / 2).toFixed(1)}" height="${(height - pad.bottom - y(p.flagged)).toFixed(1)}"></rect></g>`;
  }).join("");
  const every = Math.ceil(points.length / 6);
  const ticks = points.map((p, i) => i % every === 0
    ? `<text class="tick" x="${(pad.left + i * slot + slot / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle">${esc(label(p.start, granularity))}</text>` : "").join("");
  return `<figure class="chart">
  <svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)} (UTC)">
    <line class="axis" x1="${pad.left}" y1="${height - pad.bottom}" x2="${width}" y2="${height - pad.bottom}"></line>
    <text class="tick" x="${pad.left - 4}" y="${pad.top + 8}" text-anchor="end">${esc(formatNumber(max))}</text>
    <text class="tick" x="${pad.left - 4}" y="${height - pad.bottom}" text-anchor="end">0</text>
    ${bars}${ticks}
  </svg>
  <figcaption><span class="swatch requests"></span>Requests <span class="swatch flagged"></span>Flagged (the narrow bar) <span class="chart-utc">· dates and hours in UTC</span></figcaption>
</figure>`;
}
