import type { FlagBars } from "../policies/apply-policy.js";
import { accountShareOf, createHeldBodies, type HeldBodies } from "../base/held-bodies.js";
import type { TextClassifier } from "../classifiers/classifier.js";
import { configuredFlagBars, loadConfiguredTextClassifier } from "../classifiers/configured-text-classifier.js";
import { createAccountStore, type AccountStore } from "../accounts/account-store.js";
import { createPolicyStore, type PolicyStore } from "../policies/policy-store.js";
import { createKeyUsageTracker, type KeyUsageTracker } from "../accounts/key-usage-tracker.js";
import type { Config } from "../config/config.js";
import type { Database } from "../storage/database.js";
import { openDatabase } from "../storage/open-database.js";
import { startComputeWorkers } from "../workers/start-compute-workers.js";
import type { WorkerAnswerer } from "../workers/worker-answers.js";
import { createJsonBodyReader, type JsonBodyReader } from "../http/json-off-thread.js";
import { silentLogger, type Logger } from "../base/logger.js";
import { createMetrics, type Metrics } from "../observability/metrics.js";
import { timeTextClassifier } from "../observability/shared-timings.js";
import { createRateLimiter } from "../rate-limit/create-rate-limiter.js";
import type { RateLimiter } from "../rate-limit/rate-limiter.js";
import { dataDirKeyWithDatabaseWarning, loadSigningKeyRing, signingKeyFileWarning } from "../signing/load-key-ring.js";
import type { SigningKeyRing } from "../signing/key-ring.js";
import { createImageModeration, type ImageModeration } from "../images/index.js";
import { createTextProvider } from "../providers/text/index.js";
import type { GuardedTextProvider } from "../providers/text/guarded-text-provider.js";
import type { TextProviderSettings } from "../providers/text/config.js";
import { createMeter, type Meter } from "../metering/meter.js";
import { createUsageStore, type UsageStore } from "../metering/usage-store.js";
import { createUsageJournal, journalDirOf } from "../metering/usage-journal.js";
import { createDashboardServices, type DashboardServices } from "../dashboard/dashboard-services.js";

/**
 * Everything a request may need, built once from the config. Tests pass overrides
 * (fakes, a fake clock, a test schema) instead of patching globals.
 */
export interface AppContext {
  config: Config;
  log: Logger;
  /** Prometheus metrics (GET /metrics); other modules record through its methods. */
  metrics: Metrics;
  /** The bound on request bodies held at once, every route and protocol (HELD_BODIES_MAX_MB). */
  heldBodies: HeldBodies;
  clock: () => number;
  db: Database;
  accounts: AccountStore;
  /** Per-account moderation policies (docs/policies.md). */
  policies: PolicyStore;
  keyUsage: KeyUsageTracker;
  textClassifier: TextClassifier;
  /** The trained model's flag thresholds (its header), where it is the text classifier; policies and the dashboard read them. */
  textFlagBars?: FlagBars;
  rateLimiter: RateLimiter;
  /** The key that signs every response, and the public keys still published. */
  signingKeys: SigningKeyRing;
  /** Answers calls of text items only in one compute-worker job each; absent without workers. */
  workerAnswerer?: WorkerAnswerer;
  /** Parses the JSON routes' bodies, the large ones in the compute workers when there are any (json-off-thread.ts). */
  readJsonBody: JsonBodyReader;
  /** Compute workers running now (readiness); absent without workers. */
  computeWorkersLive?: () => number;
  images: ImageModeration;
  /** The guard-model provider for second opinions on text (TEXT_PROVIDER_*); absent when none is configured. */
  textProvider?: { provider: GuardedTextProvider; settings: TextProviderSettings };
  usage: UsageStore;
  /** Journals usage on disk and flushes it to `usage`; see meter.ts (a crash loses nothing answered). */
  meter: Meter;
  /** Dashboard sessions and the log-in attempt limiter (one per process, shared by both listeners). */
  dashboard: DashboardServices;
  /** Releases connections, flushes buffers; the server calls it on shutdown. */
  close(): Promise<void>;
}

export interface AppContextOverrides {
  log?: Logger;
  metrics?: Metrics;
  clock?: () => number;
  db?: Database;
  textClassifier?: TextClassifier;
  /** PostgreSQL schema to use (tests isolate themselves in one). */
  pgSchema?: string;
  /** A limiter to use instead of the one config picks (tests: a fake clock, a dead Redis). */
  rateLimiter?: RateLimiter;
  signingKeys?: SigningKeyRing;
  /** An image pipeline to use instead of the embedded model (tests: fakes, a test vision server). */
  images?: ImageModeration;
  /** The bound on request bodies held at once (tests: a small account share). */
  heldBodies?: HeldBodies;
}

export async function createAppContext(config: Config, overrides: AppContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? silentLogger;
  const metrics = overrides.metrics ?? createMetrics();
  const clock = overrides.clock ?? Date.now;
  const closers: Array<() => Promise<void>> = [];
  try {
    const db = overrides.db ?? (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
      storage: config.storage,
      log,
    }));
    if (!overrides.db) closers.push(() => db.close());
    const accounts = createAccountStore(db, clock);
    const policies = createPolicyStore(db, clock);
    const keyUsage = createKeyUsageTracker(accounts, { clock });
    closers.unshift(() => keyUsage.close());
    const ring = overrides.signingKeys ?? loadSigningKeyRing(config.signing, { now: clock });
    const keyFileWarning = overrides.signingKeys ? undefined : signingKeyFileWarning(config.signing);
    if (keyFileWarning) log.warn({ setting: "SIGNING_KEY_FILE" }, keyFileWarning);
    const dataDirKeyWarning = overrides.signingKeys ? undefined : dataDirKeyWithDatabaseWarning(config);
    if (dataDirKeyWarning) log.warn({ setting: "SIGNING_KEY_FILE" }, dataDirKeyWarning);
    const compute = await startComputeWorkers(config, overrides, ring, { classifierTimings: metrics.textClassifierTimings });
    if (compute) {
      closers.push(() => compute.pool.close());
      metrics.watchQueue("compute", () => compute.pool.queueDepth());
    }
    // Classified in the workers, which time it themselves; else on this thread, timed here.
    const textClassifier = compute?.textClassifier
      ?? timeTextClassifier(overrides.textClassifier ?? (await loadConfiguredTextClassifier(config.textClassifier)), metrics.textClassifierTimings);
    // A classifier given by a test is not the model file's: its flags have no bars to read.
    const textFlagBars = overrides.textClassifier ? undefined : configuredFlagBars(config.textClassifier);
    const signingKeys = compute?.signingKeys ?? ring;
    const rateLimiter = overrides.rateLimiter ?? (await createRateLimiter({
      redisUrl: config.redisUrl,
      config: config.rateLimit,
      log,
      ...(overrides.clock ? { clock: { now: overrides.clock } } : {}),
    }));
    if (!overrides.rateLimiter) closers.push(() => rateLimiter.close());
    // IMAGE_MODEL_LOAD=lazy (tests) defers the model to the first image; the default proves at start-up it runs.
    const images = overrides.images ?? (await createImageModeration(config.images, {}, metrics));
    if (!overrides.images) closers.push(() => images.close());
    const usage = createUsageStore(db);
    const journal = createUsageJournal({ dir: journalDirOf(config.dataDir), fsync: config.meteringFsync, clock });
    const meter = createMeter({ store: usage, journal, clock, log, flushMs: config.meteringFlushMs, maxPending: config.meteringMaxPending });
    closers.unshift(() => meter.close());
    const dashboard = createDashboardServices({ db, accounts, clock, config, rateLimiter, log });

    return {
      config, log, metrics, heldBodies: overrides.heldBodies ?? createHeldBodies(config.heldBodiesMaxBytes, accountShareOf(config.heldBodiesMaxBytes)), clock, db, accounts, policies, keyUsage, textClassifier,
      ...(textFlagBars ? { textFlagBars } : {}),
      rateLimiter,
      signingKeys,
      ...(compute?.answerer ? { workerAnswerer: compute.answerer } : {}),
      readJsonBody: createJsonBodyReader(compute?.pool),
      ...(compute ? { computeWorkersLive: () => compute.pool.live() } : {}),
      images,
      ...(config.textProvider ? { textProvider: { provider: createTextProvider(config.textProvider, { metrics }), settings: config.textProvider } } : {}),
      usage, meter, dashboard,
      async close() {
        for (const close of closers) await close().catch((err: unknown) => log.warn({ err }, "error while closing"));
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    throw error;
  }
}
