/** One request's share of the held bytes: taken chunk by chunk, given back once with release(). */
export interface BodyHold {
  /** Counts `bytes` more; false (and nothing counted) when that would pass the process's bound. */
  take(bytes: number): boolean;
  /** Gives back everything this request took; later calls do nothing. */
  release(): void;
}

export interface HeldBodies {
  hold(): BodyHold;
  /** Bytes held now, for tests and metrics. */
  readonly held: number;
}

/**
 * Bytes of request bodies that callers with a live key sent and the service still holds (until
 * their answer is finished), across every route and protocol. Each body is within its own limit
 * (70 MB for ten maximal items), but nothing bounded them together: 40 concurrent requests of ten
 * 5 MB images took the server to 8 GB (parsed, decoded and queued on top of the bytes). Past the
 * bound, a body is refused as it arrives, 503 service_unavailable, and the caller retries.
 */
export function createHeldBodies(maxBytes: number): HeldBodies {
  let held = 0;
  return {
    hold() {
      let mine = 0;
      let released = false;
      return {
        take(bytes) {
          if (released || held + bytes > maxBytes) return false;
          held += bytes;
          mine += bytes;
          return true;
        },
        release() {
          if (released) return;
          released = true;
          held -= mine;
          mine = 0;
        },
      };
    },
    get held() {
      return held;
    },
  };
}

/** The message of the 503 service_unavailable (Retry-After: 1) that refuses a body past the bound. */
export const HELD_BODIES_REFUSAL = "The server holds as many request bodies as its memory bound allows; retry shortly.";
