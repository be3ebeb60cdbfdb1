import type { BudgetAcquireRequest, BudgetTicket } from '@a2aplane/a2a-governance';
import type { BudgetExceededError } from '@a2aplane/a2a-types';

export class RedisTicket implements BudgetTicket {
  constructor(
    readonly id: number,
    readonly acquiredAt: number,
  ) {}
}

/** What one ACQUIRE script run decided. */
export type Decision = { ok: true; ticket: RedisTicket } | { ok: false; error: BudgetExceededError; retryAfterMs: number | undefined };

interface Waiter {
  request: BudgetAcquireRequest;
  resolve: (ticket: BudgetTicket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * One replica's bounded FIFO of a Redis ledger under `overflow: queue`: the head is retried when
 * the window should have room again (or a ticket of this replica is metered: `pump`), at least
 * every `pollMs`; one pump runs at a time.
 */
export class RedisBudgetQueue {
  private readonly waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pumping = false;
  private closed = false;

  constructor(
    private readonly decide: (request: BudgetAcquireRequest) => Promise<Decision>,
    /** Gives back a ticket granted to a waiter that left while Redis answered. */
    private readonly giveBack: (ticket: RedisTicket) => void,
    private readonly pollMs: number,
  ) {}

  get length(): number {
    return this.waiters.length;
  }

  /** Grants queued requests from the head while Redis admits them. */
  async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const { waiters } = this;
    try {
      for (let head = waiters[0]; head !== undefined && !this.closed; head = waiters[0]) {
        let decision: Decision;
        try {
          decision = await this.decide(head.request);
        } catch (error) {
          // Redis is down: the waiter learns it now rather than at its deadline.
          if (waiters[0] === head) waiters.shift();
          detach(head);
          head.reject(error);
          continue;
        }
        if (waiters[0] !== head) {
          // Aborted while Redis answered: give a granted ticket back.
          if (decision.ok) this.giveBack(decision.ticket);
          continue;
        }
        if (decision.ok) {
          waiters.shift();
          detach(head);
          head.resolve(decision.ticket);
          continue;
        }
        if (decision.retryAfterMs === undefined) {
          waiters.shift();
          detach(head);
          head.reject(decision.error);
          continue;
        }
        this.schedule(decision.retryAfterMs);
        return;
      }
    } finally {
      this.pumping = false;
    }
  }

  enqueue(request: BudgetAcquireRequest, signal: AbortSignal | undefined, delayMs: number): Promise<BudgetTicket> {
    return new Promise<BudgetTicket>((resolve, reject) => {
      // Aborted while Redis was deciding: an abort event that already fired never fires again.
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = { request, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index === -1) return;
          this.waiters.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.schedule(delayMs);
    });
  }

  /** Stops retrying and rejects every waiter with `reason`. */
  close(reason: Error): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.waiters.splice(0)) {
      detach(waiter);
      waiter.reject(reason);
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.pump();
      },
      Math.max(1, Math.min(this.pollMs, delayMs)),
    );
    this.timer.unref?.();
  }
}

function detach(waiter: Waiter): void {
  if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
}
