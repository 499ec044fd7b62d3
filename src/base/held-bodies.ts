import { MAX_REQUEST_BYTES } from "./limits.js";

/** What taking more bytes for one request came to. */
export type Take = "taken" | "busy" | "owner_busy" | "never";

/** One request's share of the held bytes: taken chunk by chunk, given back once with release(). */
export interface BodyHold {
  /**
   * Counts `bytes` more: "taken"; "busy" (nothing counted) when other requests' bodies leave no
   * room now; "owner_busy" when the same owner's bodies fill its share; "never" when this body
   * alone is past the bound, so no retry could fit it.
   */
  take(bytes: number): Take;
  /** Gives back everything this request took; later calls do nothing. */
  release(): void;
}

export interface HeldBodies {
  /** A hold for one request of `owner` (the caller's account). */
  hold(owner: string): BodyHold;
  /** Bytes held now, for tests and metrics. */
  readonly held: number;
}

/**
 * Bytes of request bodies that callers with a live key sent and the service still holds (until
 * their answer is finished), across every route and protocol. Each body is within its own limit
 * (70 MB for ten maximal items), but nothing bounded them together: 40 concurrent requests of ten
 * 5 MB images took the server to 8 GB (parsed, decoded and queued on top of the bytes). Past the
 * bound, a body is refused as it arrives, 503 service_unavailable, and the caller retries; so is
 * one whose account already holds `ownerShareBytes` (a quarter of the bound by default). A
 * refused or failed read must release() at once: on HTTP/2 the refused stream may stay open
 * long after its answer, and its bytes with it.
 */
export function createHeldBodies(maxBytes: number, ownerShareBytes = maxBytes): HeldBodies {
  let held = 0;
  // Bytes held per owner, so that one account's slow uploads cannot fill the bound for all.
  const byOwner = new Map<string, number>();
  return {
    hold(owner) {
      let mine = 0;
      let released = false;
      return {
        take(bytes) {
          if (released || mine + bytes > maxBytes) return "never";
          if (held + bytes > maxBytes) return "busy";
          const owners = byOwner.get(owner) ?? 0;
          if (owners + bytes > ownerShareBytes) return "owner_busy";
          held += bytes;
          mine += bytes;
          byOwner.set(owner, owners + bytes);
          return "taken";
        },
        release() {
          if (released) return;
          released = true;
          held -= mine;
          const left = (byOwner.get(owner) ?? 0) - mine;
          if (left > 0) byOwner.set(owner, left);
          else byOwner.delete(owner);
          mine = 0;
        },
      };
    },
    get held() {
      return held;
    },
  };
}

/**
 * One account's share of the bound: a quarter, so that three others still get theirs, but at
 * least one maximal request (MAX_REQUEST_BYTES), so that the share never refuses a lone request
 * the whole bound would take.
 */
export function accountShareOf(maxBytes: number): number {
  return Math.min(maxBytes, Math.max(Math.floor(maxBytes / 4), MAX_REQUEST_BYTES));
}
