import type { BudgetAcquireRequest, BudgetTicket, TimerFunctions } from './budget-ledger.js';

/** What one attempt to admit a queued request decided. */
export type BudgetQueueDecision =
  | { ok: true; ticket: BudgetTicket }
  | {
      ok: false;
      /** The error a waiter that can never be admitted is rejected with. */
      error(): unknown;
      /** Milliseconds until the request could fit; `undefined` when it never can (it is shed, not kept). */
      retryAfterMs: number | undefined;
      /** When to try the head again; `undefined` when only `pump()` (a meter that frees room) can admit it. */
      wakeMs: number | undefined;
    };

export interface BudgetQueueOptions {
  /**
   * Tries to admit a request now: synchronous for a window in this process (the queue then pumps
   * without a promise), a promise for a shared one (one attempt runs at a time; a rejection
   * rejects the head and the queue goes on).
   */
  attempt(request: BudgetAcquireRequest): BudgetQueueDecision | Promise<BudgetQueueDecision>;
  /** Gives back a ticket granted to a waiter that left (aborted) while an asynchronous attempt ran. */
  giveBack?(ticket: BudgetTicket): void;
  /** Longest wait between attempts at a refused head. Default none: only `wakeMs` and `pump()` wake it. */
  pollMs?: number;
  /** Milliseconds since some epoch. Default `Date.now`. */
  clock?: () => number;
  /** Default the global ones. */
  timers?: TimerFunctions;
  /** Lets the process exit while requests wait (the timers are `unref`ed). Default false. */
  unref?: boolean;
}

/** The bounded FIFO of a capped ledger under `overflow: queue` (see `createBudgetQueue`). */
export interface BudgetQueue {
  readonly length: number;
  /** The request at the head, if any. */
  head(): BudgetAcquireRequest | undefined;
  /**
   * Queues a request until a ticket is granted, it is shed, `signal` aborts or the queue closes.
   * `refused` is the refusal of a request that becomes the head: its `wakeMs` sets the next attempt.
   */
  enqueue(request: BudgetAcquireRequest, signal: AbortSignal | undefined, refused?: BudgetQueueDecision): Promise<BudgetTicket>;
  /** Attempts the heads now, in order, while they are admitted (call it when room may have come back). */
  pump(): void;
  /** Stops attempting and rejects every waiter with `reason`. */
  close(reason: unknown): void;
}

interface Waiter {
  request: BudgetAcquireRequest;
  resolve: (ticket: BudgetTicket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The waiting room of a capped `BudgetLedger` under `overflow: queue`, shared by the in-memory
 * ledger and the Redis one: a FIFO whose head is attempted again when its refusal says room may
 * have come back by expiry (`wakeMs`, at most every `pollMs`), or when `pump()` is called (a meter
 * released a reservation). A head that can never fit is shed; a waiter whose signal aborts leaves,
 * and the next head is attempted.
 */
export function createBudgetQueue(options: BudgetQueueOptions): BudgetQueue {
  const { attempt, giveBack, pollMs = Number.POSITIVE_INFINITY, clock = Date.now, unref = false } = options;
  const timers = options.timers ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const waiters: Waiter[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerDeadline = 0;
  let pumping = false;
  let closed = false;

  const onTimer = (): void => {
    timer = undefined;
    pump();
  };

  /** Wakes the queue in `wakeMs` (at most `pollMs`); an armed timer that fires no later is kept. */
  function wake(wakeMs: number | undefined): void {
    if (wakeMs === undefined && pollMs === Number.POSITIVE_INFINITY) {
      disarm();
      return;
    }
    const now = clock();
    const deadline = now + Math.max(1, Math.ceil(Math.min(wakeMs ?? pollMs, pollMs)));
    if (timer !== undefined) {
      if (timerDeadline <= deadline) return;
      timers.clearTimeout(timer);
    }
    timerDeadline = deadline;
    timer = timers.setTimeout(onTimer, deadline - now);
    if (unref) (timer as { unref?: () => void }).unref?.();
  }

  function disarm(): void {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  }

  /** Takes `waiter` off the head. */
  function shift(waiter: Waiter): Waiter {
    if (waiters[0] === waiter) waiters.shift();
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    return waiter;
  }

  /** Applies a decision about `head`; true to go on with the next head. */
  function decided(head: Waiter, decision: BudgetQueueDecision): boolean {
    if (waiters[0] !== head) {
      // It left while the attempt ran: give a granted ticket back.
      if (decision.ok) giveBack?.(decision.ticket);
      return true;
    }
    if (decision.ok) shift(head).resolve(decision.ticket);
    // Can never fit (estimate above the cap): shed it rather than block the queue forever.
    else if (decision.retryAfterMs === undefined) shift(head).reject(decision.error());
    else {
      wake(decision.wakeMs);
      return false;
    }
    return true;
  }

  /** Attempts heads until one is refused; an asynchronous attempt continues the loop when it settles. */
  function step(): void {
    for (let head = waiters[0]; head !== undefined && !closed; head = waiters[0]) {
      let decision: BudgetQueueDecision | Promise<BudgetQueueDecision>;
      try {
        decision = attempt(head.request);
      } catch (error) {
        shift(head).reject(error);
        continue;
      }
      if (decision instanceof Promise) {
        const waiter = head;
        decision.then(
          (settled) => {
            if (decided(waiter, settled)) step();
            else pumping = false;
          },
          (error: unknown) => {
            // The shared window can't be reached: the waiter learns it now rather than at its deadline.
            shift(waiter).reject(error);
            step();
          },
        );
        return;
      }
      if (!decided(head, decision)) {
        pumping = false;
        return;
      }
    }
    pumping = false;
    disarm();
  }

  function pump(): void {
    if (pumping || closed) return;
    pumping = true;
    step();
  }

  return {
    get length() {
      return waiters.length;
    },
    head: () => waiters[0]?.request,
    pump,
    enqueue(request, signal, refused) {
      return new Promise<BudgetTicket>((resolve, reject) => {
        // Aborted while an asynchronous ledger was deciding: an abort event that already fired never fires again.
        if (signal?.aborted) return reject(signal.reason);
        const waiter: Waiter = { request, resolve, reject, signal, onAbort: undefined };
        if (signal) {
          waiter.onAbort = () => {
            const index = waiters.indexOf(waiter);
            if (index === -1) return;
            waiters.splice(index, 1);
            reject(signal.reason);
            if (index === 0) pump();
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        waiters.push(waiter);
        // A new head was just refused: wake it as a pump would.
        if (refused !== undefined && !refused.ok) wake(refused.wakeMs);
      });
    },
    close(reason) {
      closed = true;
      disarm();
      for (const waiter of waiters.splice(0)) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.reject(reason);
      }
    },
  };
}
