/**
 * A task's serial write queue: every write runs after the ones queued before it, so the store's
 * event log, the listeners and push deliveries all see one order. Items pushed back to back
 * (nothing else queued in between) share one queue step, in order: one promise hop per burst.
 */
export class WriteQueue<T> {
  private chain: Promise<unknown> = Promise.resolve();
  /** Counts `enqueue` calls, so a burst knows whether anything was queued after it. */
  private queued = 0;
  /** Items waiting for one queue step, and the `queued` count when that step was queued. */
  private burst: T[] | undefined;
  private burstTicket = 0;

  /** `onBurst`: runs in the queue with the items pushed back to back (at least one). */
  constructor(private readonly onBurst: (items: T[]) => Promise<void>) {}

  /** Runs `fn` after every write queued before it. */
  enqueue<R>(fn: () => Promise<R> | R): Promise<R> {
    this.queued += 1;
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Queues an item: it joins the burst still waiting when nothing was queued after that burst. */
  push(item: T): void {
    if (this.burst !== undefined && this.burstTicket === this.queued) {
      this.burst.push(item);
      return;
    }
    const burst = [item];
    this.burst = burst;
    void this.enqueue(() => {
      if (this.burst === burst) this.burst = undefined;
      return this.onBurst(burst);
    });
    this.burstTicket = this.queued;
  }
}
