import type { Logger } from "../base/logger.js";
import { isPostgresUnreachable, StorageUnavailableError } from "./storage-errors.js";

/** How often, at most, one probe checks whether an unreachable database is back. */
const PROBE_INTERVAL_MS = 500;

/**
 * Fails calls fast while the database is known to be unreachable. Without it every request
 * would wait out the connect or read timeout (seconds each) and pile up on the pool during an
 * outage. One failure that says "unreachable" (a connect timeout, refused, a read timeout)
 * opens it; from then on calls are refused at once, and at most one probe every
 * PROBE_INTERVAL_MS, started by the calls themselves (or /readyz), closes it when it succeeds.
 * No timer runs, so an idle process costs nothing and recovery needs no restart.
 */
export function createReachability(options: { probe: () => Promise<unknown>; log: Logger; now?: () => number }) {
  const now = options.now ?? Date.now;
  let unreachable = false;
  let probing = false;
  let lastProbeAt = 0;

  const startProbe = () => {
    if (probing || now() - lastProbeAt < PROBE_INTERVAL_MS) return;
    probing = true;
    lastProbeAt = now();
    options.probe().then(
      () => {
        if (unreachable) options.log.info({}, "database reachable again");
        unreachable = false;
      },
      () => undefined,
    ).finally(() => {
      probing = false;
    });
  };

  return {
    /** Records a failed call; an "unreachable" failure opens the fast path. */
    observe(error: unknown): void {
      if (unreachable || !isPostgresUnreachable(error)) return;
      unreachable = true;
      lastProbeAt = now();
      options.log.warn({ err: error }, "database unreachable; failing calls fast until a probe succeeds");
    },
    throwIfUnreachable(): void {
      if (!unreachable) return;
      startProbe();
      throw new StorageUnavailableError("The database is unreachable.");
    },
    isUnreachable: () => unreachable,
  };
}
