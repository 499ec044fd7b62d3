/** What taking more bytes for one request came to. */
export type Take = "taken" | "busy" | "never";

/** One request's share of the held bytes: taken chunk by chunk, given back once with release(). */
export interface BodyHold {
  /**
   * Counts `bytes` more: "taken"; "busy" (nothing counted) when other requests' bodies leave no
   * room now; "never" when this body alone is past the bound, so no retry could fit it.
   */
  take(bytes: number): Take;
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
 * bound, a body is refused as it arrives, 503 service_unavailable, and the caller retries. A
 * refused or failed read must release() at once: on HTTP/2 the refused stream may stay open
 * long after its answer, and its bytes with it.
 */
export function createHeldBodies(maxBytes: number): HeldBodies {
  let held = 0;
  return {
    hold() {
      let mine = 0;
      let released = false;
      return {
        take(bytes) {
          if (released || mine + bytes > maxBytes) return "never";
          if (held + bytes > maxBytes) return "busy";
          held += bytes;
          mine += bytes;
          return "taken";
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
