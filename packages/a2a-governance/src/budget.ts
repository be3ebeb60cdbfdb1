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
  /**
   * Who is calling, as governance keys it (the verified AgentID when there is one). The in-memory
   * ledger's caps are global; a custom ledger may keep per-caller budgets by it.
   */
  caller?: string;
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

/** The global budget ledger. Async so a shared backend (`@a2aplane/a2a-redis`) can implement it; the sync methods are optional fast paths. */
export interface BudgetLedger {
  /**
   * Counts one task against the window. Under `shed` it rejects with `BudgetExceededError`
   * (`metadata.limit` = `usd` | `tokens` | `tasks`, `retryAfterSeconds`) when a cap is reached;
   * under `queue` it waits in a bounded FIFO and rejects with limit `queue_full` past
   * `maxQueueDepth`. Aborting `signal` removes a queued request and rejects with its reason.
   */
  acquire(request: BudgetAcquireRequest, signal?: AbortSignal): Promise<BudgetTicket>;
  /**
   * Optional synchronous fast path of `acquire` for in-process ledgers: the ticket when the
   * request fits now (with nobody queued ahead of it), else `undefined`, and the caller falls back
   * to `acquire` for the refusal or the wait. A granted ticket is counted exactly as one from
   * `acquire`. Shared backends leave it out.
   */
  tryAcquire?(request: BudgetAcquireRequest): BudgetTicket | undefined;
  /**
   * Optional mid-task check: grows an in-flight ticket's reservation by `more` when the caps still
   * allow it (metered + reserved + more <= cap) and returns true; false when they do not, or the
   * ticket is no longer in flight. The governor calls it when a task's reported spend passes what
   * its ticket reserved, and stops the task on false (a budget cut). In-process ledgers answer
   * synchronously; a shared ledger returns a promise, and the governor cuts the task when it
   * resolves false or rejects (a reservation that cannot be confirmed is not granted).
   */
  reserveMore?(ticket: BudgetTicket, more: { usd?: number; tokens?: number }): boolean | Promise<boolean>;
  /** Records the actual spend of a task at its end. A ticket is metered once; later calls are ignored. */
  meter(ticket: BudgetTicket, actual: { usd?: number; tokens?: number; traceId?: string; rootAgentId?: string }): Promise<void>;
  snapshot(): BudgetSnapshot;
}

export const DEFAULT_BUDGET_WINDOW_MS = 60_000;

/** USD is summed in integer nano-dollars so that 200 x $0.005 is exactly $1.00. */
const NANO = 1e9;
const toNano = (usd: number): number => Math.round(usd * NANO);

/**
 * A growable ring of (time, a, b) entries with running sums of a and b: the sliding log. Entries
 * pushed at the same clock reading are merged into one (they leave the window together, so the
 * sums are exactly those of one entry per push), which bounds the log at one entry per clock tick
 * of the window (60 000 at millisecond resolution) however high the rate.
 */
class SlidingLog {
  private times = new Float64Array(16);
  private as = new Float64Array(16);
  private bs = new Float64Array(16);
  /** Capacity - 1; the capacity is a power of two. */
  private mask = 15;
  private head = 0;
  size = 0;
  sumA = 0;
  sumB = 0;

  push(time: number, a: number, b: number): void {
    this.sumA += a;
    this.sumB += b;
    if (this.size > 0) {
      const last = (this.head + this.size - 1) & this.mask;
      if (this.times[last] === time) {
        this.as[last]! += a;
        this.bs[last]! += b;
        return;
      }
    }
    if (this.size === this.times.length) this.grow();
    const index = (this.head + this.size) & this.mask;
    this.times[index] = time;
    this.as[index] = a;
    this.bs[index] = b;
    this.size++;
  }

  /** Drops entries at or before `cutoff` (they left the window). */
  prune(cutoff: number): void {
    while (this.size > 0 && this.times[this.head]! <= cutoff) {
      this.sumA -= this.as[this.head]!;
      this.sumB -= this.bs[this.head]!;
      this.head = (this.head + 1) & this.mask;
      this.size--;
    }
    if (this.size === 0) {
      this.sumA = 0;
      this.sumB = 0;
    }
  }

  timeAt(offset: number): number {
    return this.times[(this.head + offset) & this.mask]!;
  }
  aAt(offset: number): number {
    return this.as[(this.head + offset) & this.mask]!;
  }
  bAt(offset: number): number {
    return this.bs[(this.head + offset) & this.mask]!;
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
    this.mask = capacity - 1;
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
  /**
   * Milliseconds until expiry alone changes the verdict, so a queued head must be woken by a
   * timer; `undefined` when only metering an in-flight reservation can (meter wakes the queue).
   */
  wakeMs: number | undefined;
}

/**
 * In-flight tickets by id and the estimates they reserve. Ids are issued in sequence, so the most
 * recent `capacity` ids live in a ring of typed arrays: no allocation and no hash-table insert or
 * delete per ticket. An in-flight ticket whose slot a new id needs moves to an overflow Map (a
 * long-running task), unless more than half the ring is in flight, in which case the ring doubles.
 */
class TicketRegistry {
  /** Ticket id per slot; 0 marks a free slot (ids start at 1). */
  private ids = new Float64Array(256);
  private usd = new Float64Array(256);
  private tokens = new Float64Array(256);
  private mask = 255;
  private readonly overflow = new Map<number, { usdNano: number; tokens: number }>();
  size = 0;
  /** The reservation released by the last successful `take`. */
  takenUsdNano = 0;
  takenTokens = 0;

  add(id: number, usdNano: number, tokens: number): void {
    let index = id & this.mask;
    const occupant = this.ids[index]!;
    if (occupant !== 0) {
      // The occupant is the in-flight ticket issued one ring length earlier.
      if ((this.size - this.overflow.size) * 2 > this.ids.length) {
        this.grow();
        index = id & this.mask;
      } else {
        this.overflow.set(occupant, { usdNano: this.usd[index]!, tokens: this.tokens[index]! });
      }
    }
    this.ids[index] = id;
    this.usd[index] = usdNano;
    this.tokens[index] = tokens;
    this.size++;
  }

  /** Adds to the reservation of in-flight ticket `id`; false when it is not in flight. */
  addTo(id: number, usdNano: number, tokens: number): boolean {
    if (!(id > 0)) return false;
    const index = id & this.mask;
    if (this.ids[index] === id) {
      this.usd[index]! += usdNano;
      this.tokens[index]! += tokens;
      return true;
    }
    const entry = this.overflow.get(id);
    if (entry === undefined) return false;
    entry.usdNano += usdNano;
    entry.tokens += tokens;
    return true;
  }

  /** Removes ticket `id`, leaving its reservation in `takenUsdNano` / `takenTokens`; false when it is not in flight. */
  take(id: number): boolean {
    if (!(id > 0)) return false;
    const index = id & this.mask;
    if (this.ids[index] === id) {
      this.ids[index] = 0;
      this.takenUsdNano = this.usd[index]!;
      this.takenTokens = this.tokens[index]!;
      this.size--;
      return true;
    }
    if (this.overflow.size === 0) return false;
    const entry = this.overflow.get(id);
    if (entry === undefined) return false;
    this.overflow.delete(id);
    this.takenUsdNano = entry.usdNano;
    this.takenTokens = entry.tokens;
    this.size--;
    return true;
  }

  private grow(): void {
    const { ids, usd, tokens } = this;
    const capacity = ids.length * 2;
    this.ids = new Float64Array(capacity);
    this.usd = new Float64Array(capacity);
    this.tokens = new Float64Array(capacity);
    this.mask = capacity - 1;
    // The ring holds ids within one old length of each other: they land in distinct slots.
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id === 0) continue;
      const index = id & this.mask;
      this.ids[index] = id;
      this.usd[index] = usd[i]!;
      this.tokens[index] = tokens[i]!;
    }
  }
}

/** A ticket of a capped ledger. Not frozen (that costs more than the rest of a decision): treat it as read-only. */
class LedgerTicket implements BudgetTicket {
  constructor(
    readonly id: number,
    readonly acquiredAt: number,
  ) {}
}

/**
 * The last refusal of one kind, its frozen error and a promise rejected with it: a shed storm
 * repeats the same refusal (the window only moves when entries expire), so consecutive identical
 * refusals share both instead of building an error and a rejected promise per request.
 */
interface CachedRefusal {
  limit: BudgetLimit;
  observed: number;
  cap: number;
  retryAfterSeconds: number;
  error: BudgetExceededError;
  /** Made on first use by `acquire` (a refusal that only rejects a queued waiter needs none). */
  rejected: Promise<never> | undefined;
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
 * Builds the frozen error of a budget refusal. Refusals are flow control at a high rate: capturing
 * a stack trace costs several times more than the decision and tells the caller nothing, so V8's
 * capture is switched off while the error is built (elsewhere `stackTraceLimit` does not exist and
 * this is a no-op). The error is frozen because identical refusals share it.
 */
function budgetError(message: string, metadata: Record<string, string>, retryAfterSeconds: number): BudgetExceededError {
  const errorConstructor = Error as { stackTraceLimit?: number };
  const limit = errorConstructor.stackTraceLimit;
  errorConstructor.stackTraceLimit = 0;
  let error: BudgetExceededError;
  try {
    error = new BudgetExceededError({ message, metadata, retryAfterSeconds });
  } finally {
    errorConstructor.stackTraceLimit = limit;
  }
  Object.freeze(error.metadata);
  Object.freeze(error.details);
  return Object.freeze(error);
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
  checkLimit('maxUsdPerMinute', options.maxUsdPerMinute, false);
  checkLimit('maxTokensPerMinute', options.maxTokensPerMinute, true);
  checkLimit('maxTasksPerMinute', options.maxTasksPerMinute, true);
  const windowMs = options.windowMs ?? DEFAULT_BUDGET_WINDOW_MS;
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`expected windowMs to be > 0, got ${windowMs}`);
  const overflow: BudgetOverflow = options.overflow ?? { kind: 'shed' };
  if (overflow.kind === 'queue') checkLimit('overflow.maxQueueDepth', overflow.maxQueueDepth, true);
  else if (overflow.kind !== 'shed')
    throw new TypeError(`expected overflow.kind to be 'shed' or 'queue', got ${String((overflow as { kind: unknown }).kind)}`);
  const maxQueueDepth = overflow.kind === 'queue' ? overflow.maxQueueDepth : 0;
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

  // Counters live on objects, not in closure variables: V8 boxes a double held in a closure
  // variable anew on every assignment, while an object field is updated in place.
  const totals = { tasks: 0, usdNano: 0, tokens: 0 };
  resolvedVoid ??= Promise.resolve();
  const done = resolvedVoid;

  if (!capped) {
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
        if (actual.usd !== undefined) totals.usdNano += toNano(actual.usd);
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
          totals: { usd: totals.usdNano / NANO, tokens: totals.tokens, tasks: totals.tasks },
        };
      },
    };
  }

  const taskLog = new SlidingLog(); // (acquiredAt, tasks, 0)
  const spendLog = new SlidingLog(); // (meteredAt, usdNano, tokens)
  // In-flight tickets and the estimates they reserve.
  const outstanding = new TicketRegistry();
  const reserved = { usdNano: 0, tokens: 0 };
  const queue: Waiter[] = [];
  let nextId = 1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerDeadline = 0;
  let lastRefusal: CachedRefusal | undefined;
  let lastQueueFull: CachedRefusal | undefined;

  const prune = (now: number): void => {
    taskLog.prune(now - windowMs);
    spendLog.prune(now - windowMs);
  };

  /** Milliseconds until column `column` of `log` falls to `target` or below by expiry, walking oldest first. */
  const waitFor = (log: SlidingLog, now: number, column: 'a' | 'b', target: number): number | undefined => {
    let sum = column === 'a' ? log.sumA : log.sumB;
    for (let i = 0; i < log.size; i++) {
      sum -= column === 'a' ? log.aAt(i) : log.bAt(i);
      if (sum <= target) return log.timeAt(i) + windowMs - now;
    }
    return undefined;
  };

  const evaluate = (request: BudgetAcquireRequest, now: number): Refusal | undefined => {
    if (capUsdNano !== undefined) {
      const estimate = toNano(request.estimatedUsd ?? 0);
      const used = spendLog.sumA + reserved.usdNano;
      if (used >= capUsdNano || used + estimate > capUsdNano) {
        // Need used < cap and used + estimate <= cap once old entries expire.
        const target = Math.min(capUsdNano - 1, capUsdNano - estimate) - reserved.usdNano;
        const wakeMs = estimate > capUsdNano ? undefined : waitFor(spendLog, now, 'a', target);
        return {
          limit: 'usd',
          observed: used / NANO,
          cap: capUsdNano / NANO,
          retryAfterMs: estimate > capUsdNano ? undefined : (wakeMs ?? windowMs),
          wakeMs,
        };
      }
    }
    if (capTokens !== undefined) {
      const estimate = Math.ceil(request.estimatedTokens ?? 0);
      const used = spendLog.sumB + reserved.tokens;
      if (used >= capTokens || used + estimate > capTokens) {
        const target = Math.min(capTokens - 1, capTokens - estimate) - reserved.tokens;
        const wakeMs = estimate > capTokens ? undefined : waitFor(spendLog, now, 'b', target);
        return {
          limit: 'tokens',
          observed: used,
          cap: capTokens,
          retryAfterMs: estimate > capTokens ? undefined : (wakeMs ?? windowMs),
          wakeMs,
        };
      }
    }
    if (capTasks !== undefined && taskLog.sumA >= capTasks) {
      // Room for one more once the count falls to capTasks - 1 (never with a cap of 0).
      const wakeMs = capTasks === 0 ? undefined : waitFor(taskLog, now, 'a', capTasks - 1);
      return { limit: 'tasks', observed: taskLog.sumA, cap: capTasks, retryAfterMs: wakeMs, wakeMs };
    }
    return undefined;
  };

  const grant = (request: BudgetAcquireRequest, now: number): BudgetTicket => {
    taskLog.push(now, 1, 0);
    totals.tasks++;
    const ticket = new LedgerTicket(nextId++, now);
    const usdNano = capUsdNano === undefined || request.estimatedUsd === undefined ? 0 : toNano(request.estimatedUsd);
    const tokens = capTokens === undefined || request.estimatedTokens === undefined ? 0 : Math.ceil(request.estimatedTokens);
    reserved.usdNano += usdNano;
    reserved.tokens += tokens;
    outstanding.add(ticket.id, usdNano, tokens);
    return ticket;
  };

  /** The shared error and rejected promise of `refusal`, rebuilt only when it differs from the last one. */
  const refused = (refusal: Refusal): CachedRefusal => {
    const seconds = retrySeconds(refusal.retryAfterMs);
    const last = lastRefusal;
    if (
      last !== undefined &&
      last.limit === refusal.limit &&
      last.observed === refusal.observed &&
      last.cap === refusal.cap &&
      last.retryAfterSeconds === seconds
    ) {
      return last;
    }
    const error = budgetError(
      `global budget exceeded: ${refusal.limit} per ${windowMs / 1000}s window at ${refusal.observed} of ${refusal.cap}`,
      { limit: refusal.limit, observed: String(refusal.observed), cap: String(refusal.cap) },
      seconds,
    );
    lastRefusal = {
      limit: refusal.limit,
      observed: refusal.observed,
      cap: refusal.cap,
      retryAfterSeconds: seconds,
      error,
      rejected: undefined,
    };
    return lastRefusal;
  };

  const queueFull = (headRefusal: Refusal | undefined): Promise<never> => {
    const seconds = retrySeconds(headRefusal?.retryAfterMs);
    if (lastQueueFull !== undefined && lastQueueFull.retryAfterSeconds === seconds) return rejection(lastQueueFull);
    const error = budgetError(
      `global budget queue is full (${maxQueueDepth} waiting)`,
      { limit: 'queue_full', maxQueueDepth: String(maxQueueDepth) },
      seconds,
    );
    lastQueueFull = {
      limit: 'queue_full',
      observed: maxQueueDepth,
      cap: maxQueueDepth,
      retryAfterSeconds: seconds,
      error,
      rejected: undefined,
    };
    return rejection(lastQueueFull);
  };

  const detach = (waiter: Waiter): void => {
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  };

  const disarm = (): void => {
    if (timer !== undefined) {
      timers.clearTimeout(timer);
      timer = undefined;
    }
  };

  /** Wakes the queue in `delayMs`; an armed timer that fires no later is kept (the wake re-evaluates and re-arms). */
  const arm = (now: number, delayMs: number): void => {
    const deadline = now + Math.max(1, Math.ceil(delayMs));
    if (timer !== undefined) {
      if (timerDeadline <= deadline) return;
      timers.clearTimeout(timer);
    }
    timerDeadline = deadline;
    timer = timers.setTimeout(onTimer, deadline - now);
  };

  /** Sets the wake-up for a head refused with `refusal`: a timer when expiry can admit it, none when only a meter can. */
  const wakeFor = (refusal: Refusal, now: number): void => {
    if (refusal.wakeMs === undefined) disarm();
    else arm(now, refusal.wakeMs);
  };

  function onTimer(): void {
    timer = undefined;
    pump(clock());
  }

  /** Grants (or sheds) queued requests from the head while they fit at `now`, then sets the next wake-up. */
  function pump(now: number): void {
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
        head.reject(refused(refusal).error);
        continue;
      }
      wakeFor(refusal, now);
      return;
    }
    disarm();
  }

  const enqueue = (
    request: BudgetAcquireRequest,
    signal: AbortSignal | undefined,
    headRefusal: Refusal | undefined,
    now: number,
  ): Promise<BudgetTicket> =>
    new Promise<BudgetTicket>((resolve, reject) => {
      const waiter: Waiter = { request, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index === -1) return;
          queue.splice(index, 1);
          reject(signal.reason);
          if (index === 0) pump(clock());
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      // A new head was just refused at `now`: wake it as pump would.
      if (headRefusal !== undefined) wakeFor(headRefusal, now);
    });

  /** Validates a request and grants it now if it fits and nobody is queued ahead of it. */
  const grantNow = (request: BudgetAcquireRequest, now: number): BudgetTicket | undefined =>
    queue.length === 0 && evaluate(request, now) === undefined ? grant(request, now) : undefined;

  return {
    acquire(request, signal) {
      checkAmount('estimatedUsd', request.estimatedUsd);
      checkAmount('estimatedTokens', request.estimatedTokens);
      if (signal?.aborted) return Promise.reject(signal.reason);
      const now = clock();
      prune(now);
      if (queue.length === 0) {
        const refusal = evaluate(request, now);
        if (refusal === undefined) return Promise.resolve(grant(request, now));
        // Shed, or a request that can never fit (estimate above the cap) even under queue.
        if (overflow.kind === 'shed' || refusal.retryAfterMs === undefined) return rejection(refused(refusal));
        if (maxQueueDepth === 0) return queueFull(refusal);
        return enqueue(request, signal, refusal, now);
      }
      if (queue.length >= maxQueueDepth) return queueFull(evaluate(queue[0]!.request, now));
      return enqueue(request, signal, undefined, now);
    },

    tryAcquire(request) {
      checkAmount('estimatedUsd', request.estimatedUsd);
      checkAmount('estimatedTokens', request.estimatedTokens);
      const now = clock();
      prune(now);
      return grantNow(request, now);
    },

    reserveMore(ticket, more) {
      checkAmount('usd', more.usd);
      checkAmount('tokens', more.tokens);
      const usdNano = capUsdNano === undefined || more.usd === undefined ? 0 : toNano(more.usd);
      const tokens = capTokens === undefined || more.tokens === undefined ? 0 : Math.ceil(more.tokens);
      prune(clock());
      if (capUsdNano !== undefined && spendLog.sumA + reserved.usdNano + usdNano > capUsdNano) return false;
      if (capTokens !== undefined && spendLog.sumB + reserved.tokens + tokens > capTokens) return false;
      if (!outstanding.addTo(ticket.id, usdNano, tokens)) return false;
      reserved.usdNano += usdNano;
      reserved.tokens += tokens;
      return true;
    },

    meter(ticket, actual) {
      checkAmount('usd', actual.usd);
      checkAmount('tokens', actual.tokens);
      if (!outstanding.take(ticket.id)) return done;
      const releasedUsdNano = outstanding.takenUsdNano;
      const releasedTokens = outstanding.takenTokens;
      reserved.usdNano -= releasedUsdNano;
      reserved.tokens -= releasedTokens;
      const usdNano = actual.usd === undefined ? 0 : toNano(actual.usd);
      // Tokens are whole: a fractional count is rounded up so the integer arithmetic stays exact.
      const tokens = actual.tokens === undefined ? 0 : Math.ceil(actual.tokens);
      totals.usdNano += usdNano;
      totals.tokens += tokens;
      const now = clock();
      prune(now);
      if (usdNano > 0 || tokens > 0) spendLog.push(now, usdNano, tokens);
      // A released reservation may make room for the head of the queue.
      if (queue.length > 0 && (releasedUsdNano > 0 || releasedTokens > 0)) pump(now);
      return done;
    },

    snapshot() {
      prune(clock());
      return {
        windowMs,
        limits,
        window: { usd: spendLog.sumA / NANO, tokens: spendLog.sumB, tasks: taskLog.sumA },
        inFlight: outstanding.size,
        reserved: { usd: reserved.usdNano / NANO, tokens: reserved.tokens },
        queueDepth: queue.length,
        totals: { usd: totals.usdNano / NANO, tokens: totals.tokens, tasks: totals.tasks },
      };
    },
  };
}

/** The promise rejected with a cached refusal's error, shared by identical refusals (see `createInMemoryBudgetLedger`). */
function rejection(cached: CachedRefusal): Promise<never> {
  cached.rejected ??= Promise.reject(cached.error);
  return cached.rejected;
}
