/**
 * Jobs waiting for a worker, in lanes that take turns: one lane per caller's account, so an
 * account with many expensive jobs queued cannot make another account's one cheap job wait
 * behind all of them; an account with nothing waiting goes next when it sends a job. Measured before lanes (bench/fair-share.ts): eight requests of ten
 * 10,000-character texts from one account made another account's one-word request wait for
 * all eight. Within a lane, first in, first out. Turns are per job, not per unit of work: a
 * lane of heavy jobs still takes one job per turn (the worker pool bounds how much work one
 * message to a worker may hold, so a turn is short).
 */
export class LaneQueue<T extends { readonly lane: string }> {
  /**
   * Lanes not served since they last filled, in arrival order: they go before every lane in
   * rotation, as a new arrival goes next in a round robin, not after a full round.
   */
  #fresh = new Map<string, T[]>();
  /** Lanes served and still holding jobs, in turn order (a Map iterates in insertion order). */
  #rotating = new Map<string, T[]>();
  #size = 0;

  get length(): number {
    return this.#size;
  }

  push(item: T): void {
    const lane = this.#fresh.get(item.lane) ?? this.#rotating.get(item.lane);
    if (lane) lane.push(item);
    else this.#fresh.set(item.lane, [item]);
    this.#size++;
  }

  /**
   * Puts `items` back ahead of everything else (jobs a dead worker held, run again before newer
   * ones): each at the front of its lane, and their lanes first in turn order.
   */
  pushFront(items: readonly T[]): void {
    if (items.length === 0) return;
    const fresh = new Map<string, T[]>();
    for (const item of items) {
      const lane = fresh.get(item.lane);
      if (lane) lane.push(item);
      else fresh.set(item.lane, [item]);
    }
    for (const lanes of [this.#fresh, this.#rotating]) {
      for (const [key, lane] of lanes) {
        const front = fresh.get(key);
        if (front) front.push(...lane);
        else fresh.set(key, lane);
      }
    }
    this.#fresh = fresh;
    this.#rotating = new Map();
    this.#size += items.length;
  }

  /** The job whose turn it is, without taking it. */
  peek(): T | undefined {
    for (const lane of this.#fresh.values()) return lane[0];
    for (const lane of this.#rotating.values()) return lane[0];
    return undefined;
  }

  /** Takes the job whose turn it is; its lane, if it holds more, goes to the back of the rotation. */
  shift(): T | undefined {
    const lanes = this.#fresh.size > 0 ? this.#fresh : this.#rotating;
    for (const [key, lane] of lanes) {
      const item = lane.shift()!;
      lanes.delete(key);
      if (lane.length > 0) this.#rotating.set(key, lane);
      this.#size--;
      return item;
    }
    return undefined;
  }

  /** Takes `item` out wherever it waits (its caller left); false when it is not here. */
  remove(item: T): boolean {
    const lanes = this.#fresh.has(item.lane) ? this.#fresh : this.#rotating;
    const lane = lanes.get(item.lane);
    const at = lane ? lane.indexOf(item) : -1;
    if (at < 0) return false;
    lane!.splice(at, 1);
    if (lane!.length === 0) lanes.delete(item.lane);
    this.#size--;
    return true;
  }

  /** Takes every job, lane by lane. */
  drain(): T[] {
    const all = [...this.#fresh.values(), ...this.#rotating.values()].flat();
    this.#fresh.clear();
    this.#rotating.clear();
    this.#size = 0;
    return all;
  }
}
