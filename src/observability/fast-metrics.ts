import type { Metric } from "prom-client";

/**
 * A counter and a histogram for the per-request path, read by prom-client's registry like its
 * own metrics. prom-client hashes the label object on every inc/observe (about 1.3 µs each,
 * measured), and a request records into two series; here the label values are joined into a
 * Map key once and the rest is array increments. Low-traffic metrics use prom-client directly.
 */
type Labels = Record<string, string>;
interface MetricValue { labels: Labels; value: number; metricName?: string }

abstract class FastMetric<Series> {
  /** Every series with its labels, for the exposition. */
  protected readonly series: Array<{ labels: Labels; data: Series }> = [];
  /**
   * The series by label value, one Map level per label (in labelNames order). A look-up hashes
   * the label values themselves, strings that keep their hash once computed (the routes,
   * protocols and codes are the same few strings on every request), rather than a key joined
   * from them per call, whose hash is computed anew each time.
   */
  private index = new Map<string, unknown>();
  readonly aggregator = "sum";

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  /** The series for these label values (in labelNames order), created on first use. */
  protected at(values: readonly string[]): Series {
    let level = this.index;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i] ?? "";
      let next = level.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    const value = values[last] ?? "";
    let data = level.get(value) as Series | undefined;
    if (data === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i] ?? ""));
      data = this.create();
      this.series.push({ labels, data });
      level.set(value, data);
    }
    return data;
  }

  protected abstract create(): Series;
  abstract get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }>;

  reset(): void {
    this.series.length = 0;
    this.index = new Map();
  }

  /** prom-client's Registry accepts any object with this shape (name, help, type, get, reset). */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}

export class FastCounter extends FastMetric<{ value: number }> {
  readonly type = "counter";

  inc(values: readonly string[]): void {
    this.at(values).value++;
  }

  protected create() {
    return { value: 0 };
  }

  async get() {
    const values = this.series.map(({ labels, data }) => ({ labels, value: data.value }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

export class FastHistogram extends FastMetric<{ counts: Float64Array; sum: number }> {
  readonly type = "histogram";

  constructor(name: string, help: string, labelNames: readonly string[], private readonly bounds: readonly number[]) {
    super(name, help, labelNames);
  }

  observe(values: readonly string[], seconds: number): void {
    const series = this.at(values);
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
  }

  protected create() {
    // One count per bucket, not cumulative; the last is +Inf.
    return { counts: new Float64Array(this.bounds.length + 1), sum: 0 };
  }

  async get() {
    const values: MetricValue[] = [];
    for (const { labels, data } of this.series) {
      const cumulative: number[] = [];
      let running = 0;
      for (const count of data.counts) cumulative.push((running += count));
      values.push(...histogramValues(this.name, labels, this.bounds, cumulative, data.sum));
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** Prometheus histogram lines: cumulative buckets (the last, +Inf, is the count), _sum and _count. */
export function histogramValues(name: string, labels: Labels, bounds: readonly number[], cumulative: readonly number[], sum: number): MetricValue[] {
  const count = cumulative[cumulative.length - 1] ?? 0;
  return [
    ...bounds.map((le, i) => ({ labels: { ...labels, le: String(le) }, value: cumulative[i] ?? 0, metricName: `${name}_bucket` })),
    { labels: { ...labels, le: "+Inf" }, value: count, metricName: `${name}_bucket` },
    { labels, value: sum, metricName: `${name}_sum` },
    { labels, value: count, metricName: `${name}_count` },
  ];
}
