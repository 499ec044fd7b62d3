import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { FastCounter, FastHistogram, histogramValues } from "./fast-metrics.js";
import { CLASSIFIER_BUCKETS, createSharedTimings, readTimings, type SharedTimings } from "./shared-timings.js";

/** Request latency buckets (seconds): a text call takes about a millisecond, an image call up to seconds. */
// Up to the longest a request may take by the settings: the vision provider's 45 s, an upload's
// REQUEST_TIMEOUT_MS of 300 s (they stopped at 30 s, and every such request fell in +Inf).
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** What a provider circuit reports; the gauge's value is its index. */
const CIRCUIT_STATES = ["closed", "half_open", "open"] as const;

/**
 * The service's Prometheus metrics, one registry per AppContext (tests run several servers in
 * one process). Other modules record through these methods; nothing else touches prom-client.
 * Names and labels are listed in docs/observability.md.
 */
export interface Metrics {
  readonly registry: Registry;
  /**
   * One finished HTTP request or RPC. `code` is the API error code, "" on success. `seconds`
   * undefined: counted, not timed (refused before routing, when no start time was taken).
   */
  request(route: string, protocol: string, status: number, code: string, seconds: number | undefined): void;
  /** A call refused by the per-account limiter: "exceeded" (429) or "unavailable" (fail-closed 503), or another limiter's name. */
  rateLimitRejected(reason: string): void;
  /** A call the per-account limiter let through without counting it (store down, RATE_LIMIT_FAILURE_MODE=open). */
  rateLimitUncounted(): void;
  /** One attempt at an outbound provider (e.g. the vision model): "success", or the failure kind. */
  providerCall(provider: string, outcome: string, seconds: number): void;
  /** Reports a provider's circuit state at each scrape. */
  watchCircuit(provider: string, state: () => (typeof CIRCUIT_STATES)[number]): void;
  /** Reports a worker pool's jobs waiting or running at each scrape. */
  watchQueue(pool: string, depth: () => number): void;
  /** Reports the requests open at once over every HTTP/2 connection, at each scrape. */
  watchOpenHttp2Streams(open: () => number): void;
  /** A new HTTP/2 stream reset with REFUSED_STREAM: HTTP2_MAX_STREAMS were open. */
  http2StreamRefused(): void;
  /** Reports the connections open at once over every listener, at each scrape. */
  watchOpenConnections(open: () => number): void;
  /** A new connection closed as it arrived: MAX_CONNECTIONS ("total") or MAX_CONNECTIONS_PER_ADDRESS ("per_address") were open. */
  connectionRefused(reason: "total" | "per_address"): void;
  /** Shared memory that compute worker threads record text classification times into. */
  readonly textClassifierTimings: SharedTimings;
  /** The embedded image model's time for one image item. */
  imageClassified(seconds: number): void;
  /** The exposition text, and its Content-Type. */
  render(): Promise<string>;
  readonly contentType: string;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new FastCounter("moderation_requests_total", "Requests answered, by route, protocol, HTTP status and API error code (empty on success).", ["route", "protocol", "status", "code"]);
  const latency = new FastHistogram("moderation_request_duration_seconds", "Time from routing to the last byte of the answer.", ["route", "protocol"], LATENCY_BUCKETS);
  registry.registerMetric(requests.asMetric());
  registry.registerMetric(latency.asMetric());

  const textClassifierTimings = createSharedTimings();
  const imageTimes = new FastHistogram("moderation_classifier_seconds", "", ["kind"], CLASSIFIER_BUCKETS);
  const classifierMetric = {
    name: "moderation_classifier_seconds",
    help: "Classifier time per item: text (each item, and a multi-item call's combined text) and image (the embedded model).",
    type: "histogram",
    aggregator: "sum",
  };
  registry.registerMetric({
    ...classifierMetric,
    reset: () => imageTimes.reset(),
    // Text times are read from the shared memory the compute workers record into.
    async get() {
      const text = readTimings(textClassifierTimings);
      const image = await imageTimes.get();
      return {
        ...classifierMetric,
        values: [...histogramValues("moderation_classifier_seconds", { kind: "text" }, CLASSIFIER_BUCKETS, text.cumulative, text.sum), ...image.values],
      };
    },
  } as unknown as Parameters<Registry["registerMetric"]>[0]);

  const rateLimited = new Counter({ name: "moderation_rate_limit_rejections_total", help: "Calls refused by a rate limiter, by reason.", labelNames: ["reason"], registers: [registry] });
  const uncounted = new Counter({ name: "moderation_rate_limit_uncounted_total", help: "Calls served without a rate limit check: the limiter's store was down and RATE_LIMIT_FAILURE_MODE is open.", registers: [registry] });
  const providerCalls = new Counter({ name: "moderation_provider_calls_total", help: "Attempts at outbound providers, by outcome (success or the failure kind).", labelNames: ["provider", "outcome"], registers: [registry] });
  const providerFailures = new Counter({ name: "moderation_provider_failures_total", help: "Failed attempts at outbound providers.", labelNames: ["provider"], registers: [registry] });
  const providerSeconds = new Histogram({ name: "moderation_provider_call_duration_seconds", help: "Time of one attempt at an outbound provider.", labelNames: ["provider"], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 45], registers: [registry] });

  const circuits = new Map<string, () => (typeof CIRCUIT_STATES)[number]>();
  new Gauge({
    name: "moderation_provider_circuit_state",
    help: "Provider circuit breaker: 0 closed, 1 half-open (one trial allowed), 2 open (failing fast).",
    labelNames: ["provider"],
    registers: [registry],
    collect() {
      for (const [provider, state] of circuits) this.set({ provider }, CIRCUIT_STATES.indexOf(state()));
    },
  });
  const queues = new Map<string, () => number>();
  new Gauge({
    name: "moderation_worker_queue_depth",
    help: "Jobs submitted to a worker pool and not yet answered (queued or running).",
    labelNames: ["pool"],
    registers: [registry],
    collect() {
      for (const [pool, depth] of queues) this.set({ pool }, depth());
    },
  });

  let openHttp2Streams = () => 0;
  new Gauge({
    name: "moderation_http2_open_streams",
    help: "Requests open at once over every HTTP/2 connection (HTTP2_MAX_STREAMS bounds them).",
    registers: [registry],
    collect() {
      this.set(openHttp2Streams());
    },
  });
  const http2Refused = new Counter({ name: "moderation_http2_streams_refused_total", help: "New HTTP/2 streams reset with REFUSED_STREAM because HTTP2_MAX_STREAMS were open.", registers: [registry] });
  let openConnections = () => 0;
  new Gauge({
    name: "moderation_open_connections",
    help: "Connections open at once over the API listeners (MAX_CONNECTIONS bounds them).",
    registers: [registry],
    collect() {
      this.set(openConnections());
    },
  });
  const connectionsRefused = new Counter({
    name: "moderation_connections_refused_total",
    help: "New connections closed as they arrived: MAX_CONNECTIONS (reason total) or MAX_CONNECTIONS_PER_ADDRESS (per_address) were open.",
    labelNames: ["reason"] as const,
    registers: [registry],
  });

  return {
    registry,
    request(route, protocol, status, code, seconds) {
      requests.inc([route, protocol, statusText(status), code]);
      if (seconds !== undefined) latency.observe([route, protocol], seconds);
    },
    rateLimitRejected: (reason) => rateLimited.inc({ reason }),
    rateLimitUncounted: () => uncounted.inc(),
    providerCall(provider, outcome, seconds) {
      providerCalls.inc({ provider, outcome });
      if (outcome !== "success") providerFailures.inc({ provider });
      providerSeconds.observe({ provider }, seconds);
    },
    watchCircuit: (provider, state) => void circuits.set(provider, state),
    watchQueue: (pool, depth) => void queues.set(pool, depth),
    watchOpenHttp2Streams: (open) => {
      openHttp2Streams = open;
    },
    http2StreamRefused: () => http2Refused.inc(),
    watchOpenConnections: (open) => {
      openConnections = open;
    },
    connectionRefused: (reason) => connectionsRefused.inc({ reason }),
    textClassifierTimings,
    imageClassified: (seconds) => imageTimes.observe(["image"], seconds),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

// Status codes as label text without a String() per request.
const STATUS_TEXT = new Map<number, string>();
function statusText(status: number): string {
  let text = STATUS_TEXT.get(status);
  if (text === undefined) STATUS_TEXT.set(status, (text = String(status)));
  return text;
}
