/**
 * A sliding log of (time, amount) entries with their running total: the exact rolling window of
 * the in-memory budget ledger. A growable ring of typed arrays; entries pushed at the same clock
 * reading are merged into one (they leave the window together, so the total is exactly that of
 * one entry per push), which bounds the log at one entry per clock tick of the window (60 000 at
 * millisecond resolution) however high the rate.
 */
export class SlidingSum {
  private times = new Float64Array(16);
  private amounts = new Float64Array(16);
  /** Capacity - 1; the capacity is a power of two. */
  private mask = 15;
  private head = 0;
  /** Entries in the window. */
  size = 0;
  /** The sum of the amounts in the window. */
  total = 0;

  push(time: number, amount: number): void {
    this.total += amount;
    if (this.size > 0) {
      const last = (this.head + this.size - 1) & this.mask;
      if (this.times[last] === time) {
        this.amounts[last] = (this.amounts[last] ?? 0) + amount;
        return;
      }
    }
    if (this.size === this.times.length) this.grow();
    const index = (this.head + this.size) & this.mask;
    this.times[index] = time;
    this.amounts[index] = amount;
    this.size++;
  }

  /** Drops entries at or before `cutoff` (they left the window). */
  prune(cutoff: number): void {
    while (this.size > 0 && this.timeAt(0) <= cutoff) {
      this.total -= this.amountAt(0);
      this.head = (this.head + 1) & this.mask;
      this.size--;
    }
    if (this.size === 0) this.total = 0;
  }

  /**
   * Milliseconds from `now` until the total falls to `target` or below by expiry alone (walking the
   * oldest entries first); `undefined` when expiry alone never gets it there.
   */
  expiryWait(now: number, windowMs: number, target: number): number | undefined {
    let sum = this.total;
    for (let offset = 0; offset < this.size; offset++) {
      sum -= this.amountAt(offset);
      if (sum <= target) return this.timeAt(offset) + windowMs - now;
    }
    return undefined;
  }

  private timeAt(offset: number): number {
    return this.times[(this.head + offset) & this.mask] ?? 0;
  }

  private amountAt(offset: number): number {
    return this.amounts[(this.head + offset) & this.mask] ?? 0;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    const amounts = new Float64Array(capacity);
    for (let offset = 0; offset < this.size; offset++) {
      times[offset] = this.timeAt(offset);
      amounts[offset] = this.amountAt(offset);
    }
    this.times = times;
    this.amounts = amounts;
    this.mask = capacity - 1;
    this.head = 0;
  }
}
