import type { BudgetAcquireRequest, BudgetTicket, TimerFunctions } from './budget-ledger.js';
import type { Refusal, RefusalCache } from './budget-refusals.js';
import type { BudgetWindow } from './budget-window.js';

interface Waiter {
  request: BudgetAcquireRequest;
  resolve: (ticket: BudgetTicket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The bounded FIFO of a capped in-memory ledger under `overflow: queue`. A queued head is woken by
 * a timer only when expiry can admit it; when only in-flight reservations block it, the `meter`
 * that releases one wakes it (`pump`).
 */
export class BudgetQueue {
  private readonly waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDeadline = 0;
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.pump(this.clock());
  };

  constructor(
    private readonly window: BudgetWindow,
    private readonly refusals: RefusalCache,
    private readonly clock: () => number,
    private readonly timers: TimerFunctions,
  ) {}

  get length(): number {
    return this.waiters.length;
  }

  /** The request at the head, if any. */
  head(): BudgetAcquireRequest | undefined {
    return this.waiters[0]?.request;
  }

  /** Grants (or sheds) queued requests from the head while they fit at `now`, then sets the next wake-up. */
  pump(now: number): void {
    const { waiters, window } = this;
    window.prune(now);
    for (let head = waiters[0]; head !== undefined; head = waiters[0]) {
      const refusal = window.evaluate(head.request, now);
      if (refusal === undefined) {
        waiters.shift();
        detach(head);
        head.resolve(window.grant(head.request, now));
        continue;
      }
      if (refusal.retryAfterMs === undefined) {
        // Can never fit (estimate above the cap): shed it rather than block the queue forever.
        waiters.shift();
        detach(head);
        head.reject(this.refusals.error(refusal));
        continue;
      }
      this.wakeFor(refusal, now);
      return;
    }
    this.disarm();
  }

  /** Queues a request; `headRefusal` is the refusal of a request that becomes the head at `now`. */
  enqueue(
    request: BudgetAcquireRequest,
    signal: AbortSignal | undefined,
    headRefusal: Refusal | undefined,
    now: number,
  ): Promise<BudgetTicket> {
    return new Promise<BudgetTicket>((resolve, reject) => {
      const waiter: Waiter = { request, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index === -1) return;
          this.waiters.splice(index, 1);
          reject(signal.reason);
          if (index === 0) this.pump(this.clock());
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      // A new head was just refused at `now`: wake it as pump would.
      if (headRefusal !== undefined) this.wakeFor(headRefusal, now);
    });
  }

  /** Sets the wake-up for a head refused with `refusal`: a timer when expiry can admit it, none when only a meter can. */
  private wakeFor(refusal: Refusal, now: number): void {
    if (refusal.wakeMs === undefined) this.disarm();
    else this.arm(now, refusal.wakeMs);
  }

  /** Wakes the queue in `delayMs`; an armed timer that fires no later is kept (the wake re-evaluates and re-arms). */
  private arm(now: number, delayMs: number): void {
    const deadline = now + Math.max(1, Math.ceil(delayMs));
    if (this.timer !== undefined) {
      if (this.timerDeadline <= deadline) return;
      this.timers.clearTimeout(this.timer);
    }
    this.timerDeadline = deadline;
    this.timer = this.timers.setTimeout(this.onTimer, deadline - now);
  }

  private disarm(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

function detach(waiter: Waiter): void {
  if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
}
