import type { BudgetAcquireRequest, BudgetSnapshot, BudgetTicket } from './budget-ledger.js';
import { NANO_PER_USD, type ResolvedBudgetOptions, usdToNano } from './budget-options.js';
import type { Refusal } from './budget-refusals.js';
import { SlidingSum } from './sliding-sum.js';
import { TicketRegistry } from './ticket-registry.js';

/** A ticket of a capped ledger. Not frozen (that costs more than the rest of a decision): treat it as read-only. */
class LedgerTicket implements BudgetTicket {
  constructor(
    readonly id: number,
    readonly acquiredAt: number,
  ) {}
}

/**
 * The rolling window of a capped in-memory ledger: exact sliding logs of the tasks acquired and
 * the spend metered, the in-flight tickets and the estimates they reserve. Every method takes the
 * clock reading `now`; the caller prunes first.
 */
export class BudgetWindow {
  /** Acquisitions (1 each) by acquire time. */
  private readonly taskLog = new SlidingSum();
  /** Metered spend by meter time; both logs get an entry per meter, so their times are the same. */
  private readonly usdNanoLog = new SlidingSum();
  private readonly tokenLog = new SlidingSum();
  /** In-flight tickets and the estimates they reserve. */
  private readonly outstanding = new TicketRegistry();
  // Counters live on objects, not in closure variables: V8 boxes a double held in a closure
  // variable anew on every assignment, while an object field is updated in place.
  private readonly reserved = { usdNano: 0, tokens: 0 };
  /** Lifetime totals: tasks acquired, USD and tokens metered. */
  readonly totals = { tasks: 0, usdNano: 0, tokens: 0 };
  private nextId = 1;
  /** The reservation the last successful `meter` released. */
  readonly released = { usdNano: 0, tokens: 0 };

  constructor(private readonly options: ResolvedBudgetOptions) {}

  prune(now: number): void {
    const cutoff = now - this.options.windowMs;
    this.taskLog.prune(cutoff);
    this.usdNanoLog.prune(cutoff);
    this.tokenLog.prune(cutoff);
  }

  /** Why `request` does not fit now, or `undefined` when it does. */
  evaluate(request: BudgetAcquireRequest, now: number): Refusal | undefined {
    const { capUsdNano, capTokens, capTasks, windowMs } = this.options;
    const { reserved } = this;
    if (capUsdNano !== undefined) {
      const estimate = usdToNano(request.estimatedUsd ?? 0);
      const used = this.usdNanoLog.total + reserved.usdNano;
      if (used >= capUsdNano || used + estimate > capUsdNano) {
        // Need used < cap and used + estimate <= cap once old entries expire.
        const target = Math.min(capUsdNano - 1, capUsdNano - estimate) - reserved.usdNano;
        const wakeMs = estimate > capUsdNano ? undefined : this.usdNanoLog.expiryWait(now, windowMs, target);
        return {
          limit: 'usd',
          observed: used / NANO_PER_USD,
          cap: capUsdNano / NANO_PER_USD,
          retryAfterMs: estimate > capUsdNano ? undefined : (wakeMs ?? windowMs),
          wakeMs,
        };
      }
    }
    if (capTokens !== undefined) {
      const estimate = Math.ceil(request.estimatedTokens ?? 0);
      const used = this.tokenLog.total + reserved.tokens;
      if (used >= capTokens || used + estimate > capTokens) {
        const target = Math.min(capTokens - 1, capTokens - estimate) - reserved.tokens;
        const wakeMs = estimate > capTokens ? undefined : this.tokenLog.expiryWait(now, windowMs, target);
        return {
          limit: 'tokens',
          observed: used,
          cap: capTokens,
          retryAfterMs: estimate > capTokens ? undefined : (wakeMs ?? windowMs),
          wakeMs,
        };
      }
    }
    if (capTasks !== undefined && this.taskLog.total >= capTasks) {
      // Room for one more once the count falls to capTasks - 1 (never with a cap of 0).
      const wakeMs = capTasks === 0 ? undefined : this.taskLog.expiryWait(now, windowMs, capTasks - 1);
      return { limit: 'tasks', observed: this.taskLog.total, cap: capTasks, retryAfterMs: wakeMs, wakeMs };
    }
    return undefined;
  }

  /** Counts a task that fits (see `evaluate`) and reserves its estimates. */
  grant(request: BudgetAcquireRequest, now: number): BudgetTicket {
    const { capUsdNano, capTokens } = this.options;
    this.taskLog.push(now, 1);
    this.totals.tasks++;
    const ticket = new LedgerTicket(this.nextId++, now);
    const usdNano = capUsdNano === undefined || request.estimatedUsd === undefined ? 0 : usdToNano(request.estimatedUsd);
    const tokens = capTokens === undefined || request.estimatedTokens === undefined ? 0 : Math.ceil(request.estimatedTokens);
    this.reserved.usdNano += usdNano;
    this.reserved.tokens += tokens;
    this.outstanding.add(ticket.id, usdNano, tokens);
    return ticket;
  }

  /** Grows an in-flight ticket's reservation when the caps allow it. */
  reserveMore(ticket: BudgetTicket, more: { usd?: number; tokens?: number }): boolean {
    const { capUsdNano, capTokens } = this.options;
    const { reserved } = this;
    const usdNano = capUsdNano === undefined || more.usd === undefined ? 0 : usdToNano(more.usd);
    const tokens = capTokens === undefined || more.tokens === undefined ? 0 : Math.ceil(more.tokens);
    if (capUsdNano !== undefined && this.usdNanoLog.total + reserved.usdNano + usdNano > capUsdNano) return false;
    if (capTokens !== undefined && this.tokenLog.total + reserved.tokens + tokens > capTokens) return false;
    if (!this.outstanding.addTo(ticket.id, usdNano, tokens)) return false;
    reserved.usdNano += usdNano;
    reserved.tokens += tokens;
    return true;
  }

  /**
   * Records a ticket's actual spend and releases its reservation (left in `released`), unless the
   * ticket is not in flight (metered already, or never issued here). Returns the clock reading
   * it metered at, or `undefined` when the ticket is not in flight.
   */
  meter(ticket: BudgetTicket, actual: { usd?: number; tokens?: number }, clock: () => number): number | undefined {
    const { outstanding, reserved, released, totals } = this;
    if (!outstanding.take(ticket.id)) return undefined;
    released.usdNano = outstanding.takenUsdNano;
    released.tokens = outstanding.takenTokens;
    reserved.usdNano -= released.usdNano;
    reserved.tokens -= released.tokens;
    const usdNano = actual.usd === undefined ? 0 : usdToNano(actual.usd);
    // Tokens are whole: a fractional count is rounded up so the integer arithmetic stays exact.
    const tokens = actual.tokens === undefined ? 0 : Math.ceil(actual.tokens);
    totals.usdNano += usdNano;
    totals.tokens += tokens;
    const now = clock();
    this.prune(now);
    if (usdNano > 0 || tokens > 0) {
      this.usdNanoLog.push(now, usdNano);
      this.tokenLog.push(now, tokens);
    }
    return now;
  }

  /** The window's part of a snapshot. */
  usage(): Pick<BudgetSnapshot, 'window' | 'inFlight' | 'reserved' | 'totals'> {
    const { reserved, totals } = this;
    return {
      window: { usd: this.usdNanoLog.total / NANO_PER_USD, tokens: this.tokenLog.total, tasks: this.taskLog.total },
      inFlight: this.outstanding.size,
      reserved: { usd: reserved.usdNano / NANO_PER_USD, tokens: reserved.tokens },
      totals: { usd: totals.usdNano / NANO_PER_USD, tokens: totals.tokens, tasks: totals.tasks },
    };
  }
}
