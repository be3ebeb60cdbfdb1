/**
 * Keys in the order their tasks ended, each with the time it ended, oldest first: what the in-memory
 * store and bus evict and expire by. Two flat arrays rather than an object per item (a full store or
 * bus holds 10 000, and each object is one more for the collector to move). An item is stale once its
 * key went on, ended again or left (`isCurrent` says); stale items are skipped when reached, and a
 * queue (not Map order) because V8 Map iteration from the front walks over every hole earlier
 * deletions left there.
 */
export class EndedQueue {
  private keys: string[] = [];
  /** Numbers only, so V8 keeps them unboxed. */
  private times: number[] = [];
  private head = 0;

  constructor(private readonly isCurrent: (key: string, endedAt: number) => boolean) {}

  /** Items not yet consumed, stale ones included (for tests). */
  get pending(): number {
    return this.keys.length - this.head;
  }

  push(key: string, endedAt: number): void {
    this.keys.push(key);
    this.times.push(endedAt);
  }

  /** The key that ended first and is still as it ended, other than `except` (`except` is skipped, not consumed). */
  oldest(except?: string): string | undefined {
    while (this.head < this.keys.length) {
      const key = this.keys[this.head] as string;
      if (this.isCurrent(key, this.times[this.head] as number)) {
        if (key !== except) return key;
        for (let i = this.head + 1; i < this.keys.length; i++) {
          const later = this.keys[i] as string;
          if (later !== except && this.isCurrent(later, this.times[i] as number)) return later;
        }
        return undefined;
      }
      this.head += 1;
    }
    return undefined;
  }

  /**
   * Drops the consumed front, and the stale items once they outnumber the `held` keys (a key that
   * ends, goes on and ends again leaves one behind each time): the queue stays within about twice
   * what is held, even when it is never walked to its end (the oldest item always still current).
   */
  compact(held: number): void {
    if (this.pending > 2 * held + 1024) {
      // One item per current key (a key that ended twice in one millisecond left two that match).
      const kept = new Set<string>();
      const keys: string[] = [];
      const times: number[] = [];
      for (let i = this.head; i < this.keys.length; i++) {
        const key = this.keys[i] as string;
        const endedAt = this.times[i] as number;
        if (this.isCurrent(key, endedAt) && !kept.has(key)) {
          kept.add(key);
          keys.push(key);
          times.push(endedAt);
        }
      }
      this.keys = keys;
      this.times = times;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
