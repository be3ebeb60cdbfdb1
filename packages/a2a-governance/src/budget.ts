import { BudgetExceededError } from '@a2aplane/a2a-types';

/** Which limit a `BudgetExceededError` names in `metadata.limit`. */
export type BudgetLimit = 'usd' | 'tokens' | 'tasks' | 'queue_full';

export type BudgetOverflow = { kind: 'shed' } | { kind: 'queue'; maxQueueDepth: number };

export interface TimerFunctions {
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
}

export interface GlobalBudgetOptions {
  maxUsdPerMinute?: number;
  maxTokensPerMinute?: number;
  maxTasksPerMinute?: number;
  /** What happens when a cap is reached. Default `{ kind: 'shed' }`. */
  overflow?: BudgetOverflow;
  /** Length of the rolling window. Default 60 000 ms. */
  windowMs?: number;
  /** Milliseconds since some epoch. Default `Date.now`. */
  clock?: () => number;
  /** Timers used to wake queued requests. Default the global ones. */
  timers?: TimerFunctions;
}

export interface BudgetAcquireRequest {
  traceId?: string;
  rootAgentId?: string;
  /** Reserved against the USD cap from acquire until the ticket is metered. */
  estimatedUsd?: number;
  /** Reserved against the token cap from acquire until the ticket is metered. */
  estimatedTokens?: number;
}

export interface BudgetTicket {
  readonly id: number;
  readonly acquiredAt: number;
}

export interface BudgetSnapshot {
  readonly windowMs: number;
  readonly limits: { readonly usd?: number; readonly tokens?: number; readonly tasks?: number };
  /** Usage inside the current rolling window; `undefined` when no cap is set (nothing is tracked). */
  readonly window: { readonly usd: number; readonly tokens: number; readonly tasks: number } | undefined;
  /** Tickets acquired and not yet metered (0 when no cap is set). */
  readonly inFlight: number;
  /** Estimates held by in-flight tickets (0 when no cap is set). */
  readonly reserved: { readonly usd: number; readonly tokens: number };
  readonly queueDepth: number;
  /** Lifetime totals: tasks acquired, USD and tokens metered. */
  readonly totals: { readonly usd: number; readonly tokens: number; readonly tasks: number };
}

/** The global budget ledger. Async so a shared backend (Redis, say) can implement it later. */
export interface BudgetLedger {
  /**
   * Counts one task against the window. Under `shed` it rejects with `BudgetExceededError`
   * (`metadata.limit` = `usd` | `tokens` | `tasks`, `retryAfterSeconds`) when a cap is reached;
   * under `queue` it waits in a bounded FIFO and rejects with limit `queue_full` past
   * `maxQueueDepth`. Aborting `signal` removes a queued request and rejects with its reason.
   */
  acquire(request: BudgetAcquireRequest, signal?: AbortSignal): Promise<BudgetTicket>;
  /** Records the actual spend of a task at its end. A ticket is metered once; later calls are ignored. */
  meter(ticket: BudgetTicket, actual: { usd?: number; tokens?: number; traceId?: string; rootAgentId?: string }): Promise<void>;
  snapshot(): BudgetSnapshot;
}

export const DEFAULT_BUDGET_WINDOW_MS = 60_000;

/** USD is summed in integer nano-dollars so that 200 x $0.005 is exactly $1.00. */
const NANO = 1e9;
const toNano = (usd: number): number => Math.round(usd * NANO);

/** A growable ring of (time, a, b) entries with running sums of a and b: the sliding log. */
class SlidingLog {
  private times = new Float64Array(16);
  private as = new Float64Array(16);
  private bs = new Float64Array(16);
  private head = 0;
  size = 0;
  sumA = 0;
  sumB = 0;

  push(time: number, a: number, b: number): void {
    if (this.size === this.times.length) this.grow();
    const index = (this.head + this.size) % this.times.length;
    this.times[index] = time;
    this.as[index] = a;
    this.bs[index] = b;
    this.size++;
    this.sumA += a;
    this.sumB += b;
  }

  /** Drops entries at or before `cutoff` (they left the window). */
  prune(cutoff: number): void {
    while (this.size > 0 && this.times[this.head]! <= cutoff) {
      this.sumA -= this.as[this.head]!;
      this.sumB -= this.bs[this.head]!;
      this.head = (this.head + 1) % this.times.length;
      this.size--;
    }
    if (this.size === 0) {
      this.sumA = 0;
      this.sumB = 0;
    }
  }

  timeAt(offset: number): number {
    return this.times[(this.head + offset) % this.times.length]!;
  }
  aAt(offset: number): number {
    return this.as[(this.head + offset) % this.times.length]!;
  }
  bAt(offset: number): number {
    return this.bs[(this.head + offset) % this.times.length]!;
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    const as = new Float64Array(capacity);
    const bs = new Float64Array(capacity);
    for (let i = 0; i < this.size; i++) {
      times[i] = this.timeAt(i);
      as[i] = this.aAt(i);
      bs[i] = this.bAt(i);
    }
    this.times = times;
    this.as = as;
    this.bs = bs;
    this.head = 0;
  }
}

interface Waiter {
  request: BudgetAcquireRequest;
  resolve: (ticket: BudgetTicket) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Refusal {
  limit: Exclude<BudgetLimit, 'queue_full'>;
  observed: number;
  cap: number;
  /**
   * Milliseconds until the request could fit by expiry alone (a hint when in-flight reservations
   * must be metered first); `undefined` when it never can (estimate > cap).
   */
  retryAfterMs: number | undefined;
}

const UNCAPPED_TICKET: BudgetTicket = Object.freeze({ id: 0, acquiredAt: 0 });
let uncappedTicketPromise: Promise<BudgetTicket> | undefined;
let resolvedVoid: Promise<void> | undefined;

function checkLimit(name: string, value: number | undefined, integer: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`expected ${name} to be ${integer ? 'an integer' : 'a finite number'} >= 0, got ${String(value)}`);
  }
}

function checkAmount(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`expected ${name} to be a finite number >= 0, got ${String(value)}`);
  }
}

/**
 * Budget refusals are flow control at a high rate: capturing a stack trace costs several times
 * more than the decision and tells the caller nothing, so V8's capture is switched off while the
 * error is built (elsewhere `stackTraceLimit` does not exist and this is a no-op).
 */
function withoutStackTrace<T>(create: () => T): T {
  const errorConstructor = Error as { stackTraceLimit?: number };
  const limit = errorConstructor.stackTraceLimit;
  errorConstructor.stackTraceLimit = 0;
  try {
    return create();
  } finally {
    errorConstructor.stackTraceLimit = limit;
  }
}

function retrySeconds(ms: number | undefined): number {
  return ms === undefined ? 60 : Math.max(1, Math.ceil(ms / 1000));
}

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
 * With no cap set the ledger keeps no log: `acquire` and `meter` return shared settled promises
 * and only bump lifetime counters, so the fast path allocates nothing.
 */
export function createInMemoryBudgetLedger(options: GlobalBudgetOptions = {}): BudgetLedger {
  checkLimit('maxUsdPerMinute', options.maxUsdPerMinute, false);
  checkLimit('maxTokensPerMinute', options.maxTokensPerMinute, true);
  checkLimit('maxTasksPerMinute', options.maxTasksPerMinute, true);
  const windowMs = options.windowMs ?? DEFAULT_BUDGET_WINDOW_MS;
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`expected windowMs to be > 0, got ${windowMs}`);
  const overflow: BudgetOverflow = options.overflow ?? { kind: 'shed' };
  if (overflow.kind === 'queue') checkLimit('overflow.maxQueueDepth', overflow.maxQueueDepth, true);
  else if (overflow.kind !== 'shed') throw new TypeError(`expected overflow.kind to be 'shed' or 'queue', got ${String((overflow as { kind: unknown }).kind)}`);
  const clock = options.clock ?? Date.now;
  const timers: TimerFunctions = options.timers ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };

  const capUsdNano = options.maxUsdPerMinute === undefined ? undefined : toNano(options.maxUsdPerMinute);
  const capTokens = options.maxTokensPerMinute;
  const capTasks = options.maxTasksPerMinute;
  const capped = capUsdNano !== undefined || capTokens !== undefined || capTasks !== undefined;
  const limits = {
    ...(options.maxUsdPerMinute === undefined ? {} : { usd: options.maxUsdPerMinute }),
    ...(capTokens === undefined ? {} : { tokens: capTokens }),
    ...(capTasks === undefined ? {} : { tasks: capTasks }),
  };

  let totalTasks = 0;
  let totalUsdNano = 0;
  let totalTokens = 0;

  if (!capped) {
    uncappedTicketPromise ??= Promise.resolve(UNCAPPED_TICKET);
    resolvedVoid ??= Promise.resolve();
    const ticketPromise = uncappedTicketPromise;
    const done = resolvedVoid;
    return {
      acquire(_request, signal) {
        if (signal?.aborted) return Promise.reject(signal.reason);
        totalTasks++;
        return ticketPromise;
      },
      meter(_ticket, actual) {
        if (actual.usd !== undefined) totalUsdNano += toNano(actual.usd);
        if (actual.tokens !== undefined) totalTokens += actual.tokens;
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
          totals: { usd: totalUsdNano / NANO, tokens: totalTokens, tasks: totalTasks },
        };
      },
    };
  }

  const taskLog = new SlidingLog(); // (acquiredAt, 1, 0)
  const spendLog = new SlidingLog(); // (meteredAt, usdNano, tokens)
  // In-flight tickets and the estimates they reserve.
  const outstanding = new Map<number, { usdNano: number; tokens: number }>();
  let reservedUsdNano = 0;
  let reservedTokens = 0;
  const queue: Waiter[] = [];
  let nextId = 1;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const prune = (now: number): void => {
    taskLog.prune(now - windowMs);
    spendLog.prune(now - windowMs);
  };

  /** Milliseconds until the spend column `column` falls to `target` or below, walking the log oldest first. */
  const waitForSpend = (now: number, column: 'a' | 'b', target: number): number | undefined => {
    let sum = column === 'a' ? spendLog.sumA : spendLog.sumB;
    for (let i = 0; i < spendLog.size; i++) {
      sum -= column === 'a' ? spendLog.aAt(i) : spendLog.bAt(i);
      if (sum <= target) return spendLog.timeAt(i) + windowMs - now;
    }
    return undefined;
  };

  const evaluate = (request: BudgetAcquireRequest, now: number): Refusal | undefined => {
    if (capUsdNano !== undefined) {
      const estimate = toNano(request.estimatedUsd ?? 0);
      const used = spendLog.sumA + reservedUsdNano;
      if (used >= capUsdNano || used + estimate > capUsdNano) {
        // Need used < cap and used + estimate <= cap once old entries expire.
        const target = Math.min(capUsdNano - 1, capUsdNano - estimate) - reservedUsdNano;
        return {
          limit: 'usd',
          observed: used / NANO,
          cap: capUsdNano / NANO,
          retryAfterMs: estimate > capUsdNano ? undefined : (waitForSpend(now, 'a', target) ?? windowMs),
        };
      }
    }
    if (capTokens !== undefined) {
      const estimate = Math.ceil(request.estimatedTokens ?? 0);
      const used = spendLog.sumB + reservedTokens;
      if (used >= capTokens || used + estimate > capTokens) {
        const target = Math.min(capTokens - 1, capTokens - estimate) - reservedTokens;
        return {
          limit: 'tokens',
          observed: used,
          cap: capTokens,
          retryAfterMs: estimate > capTokens ? undefined : (waitForSpend(now, 'b', target) ?? windowMs),
        };
      }
    }
    if (capTasks !== undefined && taskLog.size >= capTasks) {
      return {
        limit: 'tasks',
        observed: taskLog.size,
        cap: capTasks,
        retryAfterMs: capTasks === 0 ? undefined : taskLog.timeAt(taskLog.size - capTasks) + windowMs - now,
      };
    }
    return undefined;
  };

  const grant = (request: BudgetAcquireRequest, now: number): BudgetTicket => {
    taskLog.push(now, 1, 0);
    totalTasks++;
    const ticket: BudgetTicket = Object.freeze({ id: nextId++, acquiredAt: now });
    const reservation = {
      usdNano: capUsdNano === undefined ? 0 : toNano(request.estimatedUsd ?? 0),
      tokens: capTokens === undefined ? 0 : Math.ceil(request.estimatedTokens ?? 0),
    };
    reservedUsdNano += reservation.usdNano;
    reservedTokens += reservation.tokens;
    outstanding.set(ticket.id, reservation);
    return ticket;
  };

  const refusalError = (refusal: Refusal): BudgetExceededError =>
    withoutStackTrace(() => new BudgetExceededError({
      message: `global budget exceeded: ${refusal.limit} per ${windowMs / 1000}s window at ${refusal.observed} of ${refusal.cap}`,
      metadata: { limit: refusal.limit, observed: String(refusal.observed), cap: String(refusal.cap) },
      retryAfterSeconds: retrySeconds(refusal.retryAfterMs),
    }));

  const detach = (waiter: Waiter): void => {
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  };

  const schedule = (delayMs: number): void => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = timers.setTimeout(
      () => {
        timer = undefined;
        pump();
      },
      Math.max(1, Math.ceil(delayMs)),
    );
  };

  function pump(): void {
    const now = clock();
    prune(now);
    while (queue.length > 0) {
      const head = queue[0]!;
      const refusal = evaluate(head.request, now);
      if (refusal === undefined) {
        queue.shift();
        detach(head);
        head.resolve(grant(head.request, now));
        continue;
      }
      if (refusal.retryAfterMs === undefined) {
        // Can never fit (estimate above the cap): shed it rather than block the queue forever.
        queue.shift();
        detach(head);
        head.reject(refusalError(refusal));
        continue;
      }
      schedule(refusal.retryAfterMs);
      return;
    }
    if (timer !== undefined) {
      timers.clearTimeout(timer);
      timer = undefined;
    }
  }

  return {
    acquire(request, signal) {
      checkAmount('estimatedUsd', request.estimatedUsd);
      checkAmount('estimatedTokens', request.estimatedTokens);
      if (signal?.aborted) return Promise.reject(signal.reason);
      const now = clock();
      prune(now);
      const refusal = queue.length > 0 ? undefined : evaluate(request, now);
      if (queue.length === 0 && refusal === undefined) return Promise.resolve(grant(request, now));
      if (overflow.kind === 'shed') return Promise.reject(refusalError(refusal!));
      if (refusal !== undefined && refusal.retryAfterMs === undefined) return Promise.reject(refusalError(refusal));
      if (queue.length >= overflow.maxQueueDepth) {
        const headRefusal = refusal ?? evaluate(queue[0]!.request, now);
        return Promise.reject(
          withoutStackTrace(
            () =>
              new BudgetExceededError({
                message: `global budget queue is full (${overflow.maxQueueDepth} waiting)`,
                metadata: { limit: 'queue_full', maxQueueDepth: String(overflow.maxQueueDepth) },
                retryAfterSeconds: retrySeconds(headRefusal?.retryAfterMs),
              }),
          ),
        );
      }
      return new Promise<BudgetTicket>((resolve, reject) => {
        const waiter: Waiter = { request, resolve, reject, signal, onAbort: undefined };
        if (signal) {
          waiter.onAbort = () => {
            const index = queue.indexOf(waiter);
            if (index === -1) return;
            queue.splice(index, 1);
            reject(signal.reason);
            if (index === 0) pump();
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        queue.push(waiter);
        if (queue.length === 1) pump();
      });
    },

    meter(ticket, actual) {
      checkAmount('usd', actual.usd);
      checkAmount('tokens', actual.tokens);
      const reservation = outstanding.get(ticket.id);
      if (reservation === undefined) return Promise.resolve();
      outstanding.delete(ticket.id);
      reservedUsdNano -= reservation.usdNano;
      reservedTokens -= reservation.tokens;
      const usdNano = toNano(actual.usd ?? 0);
      // Tokens are whole: a fractional count is rounded up so the integer arithmetic stays exact.
      const tokens = Math.ceil(actual.tokens ?? 0);
      totalUsdNano += usdNano;
      totalTokens += tokens;
      const now = clock();
      prune(now);
      if (usdNano > 0 || tokens > 0) spendLog.push(now, usdNano, tokens);
      // A released reservation may make room for the head of the queue.
      if (queue.length > 0 && (reservation.usdNano > 0 || reservation.tokens > 0)) pump();
      return Promise.resolve();
    },

    snapshot() {
      prune(clock());
      return {
        windowMs,
        limits,
        window: { usd: spendLog.sumA / NANO, tokens: spendLog.sumB, tasks: taskLog.size },
        inFlight: outstanding.size,
        reserved: { usd: reservedUsdNano / NANO, tokens: reservedTokens },
        queueDepth: queue.length,
        totals: { usd: totalUsdNano / NANO, tokens: totalTokens, tasks: totalTasks },
      };
    },
  };
}
