/**
 * Jobs waiting for a worker, in lanes that take turns: one lane per caller's account, so an
 * account with many expensive jobs queued cannot make another account's one cheap job wait
 * behind all of them: the next job is the first of the account served longest ago (or never),
 * so an account that sends its first job goes next. Measured before lanes (bench/fair-share.ts): eight requests of ten
 * 10,000-character texts from one account made another account's one-word request wait for
 * all eight. Within a lane, first in, first out. Turns are per job, not per unit of work: a
 * lane of heavy jobs still takes one job per turn (the worker pool bounds how much work one
 * message to a worker may hold, so a turn is short).
 */
export class LaneQueue<T extends { readonly lane: string }> {
  /** Lanes holding jobs, each oldest first. */
  #lanes = new Map<string, T[]>();
  /**
   * When each lane was last served (a count of jobs taken; bounded: past MAX_REMEMBERED_LANES,
   * every lane counts as never served until served again), kept while the lane is empty: a lane
   * that empties between its jobs (one request's job taken before the next arrived) is not new
   * when it fills again. Never served: 0; put back in front (pushFront): below 0.
   */
  #lastServed = new Map<string, number>();
  #served = 0;
  #front = 0;
  #size = 0;

  get length(): number {
    return this.#size;
  }

  push(item: T): void {
    const lane = this.#lanes.get(item.lane);
    if (lane) lane.push(item);
    else this.#lanes.set(item.lane, [item]);
    this.#size++;
  }

  /**
   * Puts `items` back ahead of everything else (jobs a dead worker held, run again before newer
   * ones): each at the front of its lane, and their lanes first in turn order.
   */
  pushFront(items: readonly T[]): void {
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i]!;
      const lane = this.#lanes.get(item.lane);
      if (lane) lane.unshift(item);
      else this.#lanes.set(item.lane, [item]);
      this.#lastServed.set(item.lane, --this.#front);
      this.#size++;
    }
  }

  /** The job whose turn it is, without taking it. */
  peek(): T | undefined {
    return this.#next()?.[1][0];
  }

  /** Notes that `lane` was just served without waiting here (a job that found a free slot). */
  served(lane: string): void {
    if (this.#lastServed.size >= MAX_REMEMBERED_LANES) this.#lastServed.clear();
    this.#lastServed.set(lane, ++this.#served);
  }

  /** Takes the job whose turn it is: the first of the lane served longest ago (or never). */
  shift(): T | undefined {
    const next = this.#next();
    if (!next) return undefined;
    const [key, lane] = next;
    const item = lane.shift()!;
    if (lane.length === 0) this.#lanes.delete(key);
    this.served(key);
    this.#size--;
    return item;
  }

  /** Takes `item` out wherever it waits (its caller left); false when it is not here. */
  remove(item: T): boolean {
    const lane = this.#lanes.get(item.lane);
    const at = lane ? lane.indexOf(item) : -1;
    if (at < 0) return false;
    lane!.splice(at, 1);
    if (lane!.length === 0) this.#lanes.delete(item.lane);
    this.#size--;
    return true;
  }

  /**
   * Makes room for a job of `lane` in a queue that is full: takes out the newest job of the
   * longest lane, when that lane holds at least two more jobs than `lane` does (so that places do
   * not pass back and forth between two lanes one apart), and returns it for its caller to be
   * refused; else undefined, and the newcomer is the one refused. So one caller alone may fill the
   * whole queue, while a caller who holds few places is not refused because another holds the rest.
   */
  displaceFor(lane: string): T | undefined {
    let longest: T[] | undefined;
    let longestKey = "";
    for (const [key, jobs] of this.#lanes) {
      if (!longest || jobs.length > longest.length) [longest, longestKey] = [jobs, key];
    }
    if (!longest || longest.length <= (this.#lanes.get(lane)?.length ?? 0) + 1) return undefined;
    const item = longest.pop()!;
    if (longest.length === 0) this.#lanes.delete(longestKey);
    this.#size--;
    return item;
  }

  /** Takes every job, lane by lane. */
  drain(): T[] {
    const all = [...this.#lanes.values()].flat();
    this.#lanes.clear();
    this.#size = 0;
    return all;
  }

  /** The lane served longest ago, with its jobs (lanes holding jobs are few: one pass). */
  #next(): [string, T[]] | undefined {
    let best: [string, T[]] | undefined;
    let bestServed = Infinity;
    for (const entry of this.#lanes) {
      const served = this.#lastServed.get(entry[0]) ?? 0;
      if (served < bestServed) [best, bestServed] = [entry, served];
    }
    return best;
  }
}

/** Lanes whose last turn is remembered, at most (one entry per account seen). */
const MAX_REMEMBERED_LANES = 100_000;
