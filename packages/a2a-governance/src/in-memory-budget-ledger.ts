import { checkAmount } from './amounts.js';
import type { BudgetLedger, BudgetTicket, GlobalBudgetOptions, TimerFunctions } from './budget-ledger.js';
import { NANO_PER_USD, type ResolvedBudgetOptions, resolveBudgetOptions, usdToNano } from './budget-options.js';
import { type BudgetQueueDecision, createBudgetQueue } from './budget-queue.js';
import { type Refusal, RefusalCache } from './budget-refusals.js';
import { BudgetWindow } from './budget-window.js';

const UNCAPPED_TICKET: BudgetTicket = Object.freeze({ id: 0, acquiredAt: 0 });
let uncappedTicketPromise: Promise<BudgetTicket> | undefined;
let resolvedVoid: Promise<void> | undefined;

/**
 * An in-process `BudgetLedger` over a rolling window (an exact sliding log, no fixed-bucket reset).
 *
 * Guarantees, for any half-open interval of length `windowMs`:
 * - tasks: at most `maxTasksPerMinute` acquisitions (exact; counted at acquire).
 * - usd / tokens: actual spend is metered at task end. Each in-flight ticket reserves its
 *   estimate (`estimatedUsd` / `estimatedTokens`) until it is metered, and a task is admitted
 *   only while metered + reserved < cap and metered + reserved + estimate <= cap. The metered
 *   sum is therefore at most `cap + sum over concurrently in-flight tasks of max(0, actual -
 *   estimate)`. With exact estimates that is the cap itself; with no estimates it is the
 *   ADR-159 bound `cap + concurrent_tasks x max_per_task_cost`. Bound the per-task overrun with
 *   `TaskPolicy.maxCostUsd` / `maxTokens`.
 *
 * Decisions are synchronous: `tryAcquire` grants without a promise, `acquire` wraps the same
 * decision, and `meter` returns one shared settled promise. A refusal identical to the previous
 * one (same limit, usage, cap and `retryAfterSeconds`) returns the same frozen
 * `BudgetExceededError` and the same rejected promise, so a shed storm allocates nothing per
 * request; Node reports such a shared rejection as unhandled only if its first receiver leaves
 * it unhandled. A queued head is woken by a timer only when expiry can admit it; when only
 * in-flight reservations block it, the `meter` that releases one wakes it.
 *
 * With no cap set the ledger keeps no log: `acquire` and `meter` return shared settled promises
 * and only bump lifetime counters, so the fast path allocates nothing.
 */
export function createInMemoryBudgetLedger(options: GlobalBudgetOptions = {}): BudgetLedger {
  const resolved = resolveBudgetOptions(options);
  const clock = options.clock ?? Date.now;
  const timers: TimerFunctions = options.timers ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  resolvedVoid ??= Promise.resolve();
  return resolved.capped ? cappedLedger(resolved, clock, timers, resolvedVoid) : uncappedLedger(resolved, resolvedVoid);
}

/** No cap: no log, only lifetime counters; every answer is a shared settled promise. */
function uncappedLedger({ windowMs, limits }: ResolvedBudgetOptions, done: Promise<void>): BudgetLedger {
  const totals = { tasks: 0, usdNano: 0, tokens: 0 };
  uncappedTicketPromise ??= Promise.resolve(UNCAPPED_TICKET);
  const ticketPromise = uncappedTicketPromise;
  return {
    acquire(_request, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      totals.tasks++;
      return ticketPromise;
    },
    tryAcquire() {
      totals.tasks++;
      return UNCAPPED_TICKET;
    },
    reserveMore() {
      return true;
    },
    meter(_ticket, actual) {
      if (actual.usd !== undefined) totals.usdNano += usdToNano(actual.usd);
      if (actual.tokens !== undefined) totals.tokens += actual.tokens;
      return done;
    },
    snapshot() {
      return {
        windowMs,
        limits,
        window: undefined,
        inFlight: 0,
        reserved: { usd: 0, tokens: 0 },
        queueDepth: 0,
        totals: { usd: totals.usdNano / NANO_PER_USD, tokens: totals.tokens, tasks: totals.tasks },
      };
    },
  };
}

function cappedLedger(resolved: ResolvedBudgetOptions, clock: () => number, timers: TimerFunctions, done: Promise<void>): BudgetLedger {
  const { windowMs, limits, overflow, maxQueueDepth } = resolved;
  const window = new BudgetWindow(resolved);
  const refusals = new RefusalCache(windowMs, maxQueueDepth);
  const refused = (refusal: Refusal): BudgetQueueDecision => ({
    ok: false,
    error: () => refusals.error(refusal),
    retryAfterMs: refusal.retryAfterMs,
    wakeMs: refusal.wakeMs,
  });
  const queue = createBudgetQueue({
    attempt(request) {
      const now = clock();
      window.prune(now);
      const refusal = window.evaluate(request, now);
      return refusal === undefined ? { ok: true, ticket: window.grant(request, now) } : refused(refusal);
    },
    clock,
    timers,
  });
  const checkRequest = (request: { estimatedUsd?: number; estimatedTokens?: number }): void => {
    checkAmount('estimatedUsd', request.estimatedUsd);
    checkAmount('estimatedTokens', request.estimatedTokens);
  };
  return {
    acquire(request, signal) {
      checkRequest(request);
      if (signal?.aborted) return Promise.reject(signal.reason);
      const now = clock();
      window.prune(now);
      const head = queue.head();
      if (head === undefined) {
        const refusal = window.evaluate(request, now);
        if (refusal === undefined) return Promise.resolve(window.grant(request, now));
        // Shed, or a request that can never fit (estimate above the cap) even under queue.
        if (overflow.kind === 'shed' || refusal.retryAfterMs === undefined) return refusals.rejection(refusal);
        if (maxQueueDepth === 0) return refusals.queueFull(refusal);
        return queue.enqueue(request, signal, refused(refusal));
      }
      if (queue.length >= maxQueueDepth) return refusals.queueFull(window.evaluate(head, now));
      return queue.enqueue(request, signal);
    },

    tryAcquire(request) {
      checkRequest(request);
      const now = clock();
      window.prune(now);
      // Granted now only when it fits and nobody is queued ahead of it.
      return queue.length === 0 && window.evaluate(request, now) === undefined ? window.grant(request, now) : undefined;
    },

    reserveMore(ticket, more) {
      checkAmount('usd', more.usd);
      checkAmount('tokens', more.tokens);
      window.prune(clock());
      return window.reserveMore(ticket, more);
    },

    meter(ticket, actual) {
      checkAmount('usd', actual.usd);
      checkAmount('tokens', actual.tokens);
      const now = window.meter(ticket, actual, clock);
      if (now === undefined) return done;
      // A released reservation may make room for the head of the queue.
      const { released } = window;
      if (queue.length > 0 && (released.usdNano > 0 || released.tokens > 0)) queue.pump();
      return done;
    },

    snapshot() {
      window.prune(clock());
      return { windowMs, limits, ...window.usage(), queueDepth: queue.length };
    },
  };
}
