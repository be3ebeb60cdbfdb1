/** Which limit a `BudgetExceededError` names in `metadata.limit`. */
export type BudgetLimit = 'usd' | 'tokens' | 'tasks' | 'queue_full';

export type BudgetOverflow = { kind: 'shed' } | { kind: 'queue'; maxQueueDepth: number };

export interface TimerFunctions {
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
}

/** The options every `BudgetLedger` implementation shares (the in-memory one, the Redis one); see `resolveBudgetOptions`. */
export interface BudgetCapOptions {
  maxUsdPerMinute?: number;
  maxTokensPerMinute?: number;
  maxTasksPerMinute?: number;
  /** What happens when a cap is reached. Default `{ kind: 'shed' }`. */
  overflow?: BudgetOverflow;
  /** Length of the rolling window. Default 60 000 ms. */
  windowMs?: number;
}

export interface GlobalBudgetOptions extends BudgetCapOptions {
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
