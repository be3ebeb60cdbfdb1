import { checkLimit } from './amounts.js';
import { type BudgetCapOptions, type BudgetOverflow, type BudgetSnapshot, DEFAULT_BUDGET_WINDOW_MS } from './budget-ledger.js';

/** Budget options checked once, with the caps in the ledger's integer units. */
export interface ResolvedBudgetOptions {
  readonly windowMs: number;
  readonly overflow: BudgetOverflow;
  /** Requests that may wait under `queue` (0 under `shed`). */
  readonly maxQueueDepth: number;
  /** The USD cap in nano-dollars (`undefined`: uncapped). */
  readonly capUsdNano: number | undefined;
  readonly capTokens: number | undefined;
  readonly capTasks: number | undefined;
  /** Whether any cap is set (an uncapped ledger tracks nothing). */
  readonly capped: boolean;
  /** The caps as a snapshot reports them. */
  readonly limits: BudgetSnapshot['limits'];
}

/** USD is summed in integer nano-dollars so that 200 x $0.005 is exactly $1.00. */
export const NANO_PER_USD = 1e9;
export const usdToNano = (usd: number): number => Math.round(usd * NANO_PER_USD);

/**
 * Checks a budget ledger's options and resolves its defaults: the one place the caps, the window
 * and the overflow policy are validated, for every ledger implementation.
 */
export function resolveBudgetOptions(options: BudgetCapOptions = {}): ResolvedBudgetOptions {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`expected budget options to be an object, got ${typeof options}`);
  checkLimit('maxUsdPerMinute', options.maxUsdPerMinute, false);
  checkLimit('maxTokensPerMinute', options.maxTokensPerMinute, true);
  checkLimit('maxTasksPerMinute', options.maxTasksPerMinute, true);
  const windowMs = options.windowMs ?? DEFAULT_BUDGET_WINDOW_MS;
  if (typeof windowMs !== 'number' || !Number.isFinite(windowMs) || windowMs <= 0) {
    throw new RangeError(`expected windowMs to be > 0, got ${String(windowMs)}`);
  }
  const overflow: BudgetOverflow = options.overflow ?? { kind: 'shed' };
  if (overflow.kind === 'queue') checkLimit('overflow.maxQueueDepth', overflow.maxQueueDepth, true);
  else if (overflow.kind !== 'shed') {
    throw new TypeError(`expected overflow.kind to be 'shed' or 'queue', got ${String((overflow as { kind: unknown }).kind)}`);
  }
  const { maxUsdPerMinute, maxTokensPerMinute, maxTasksPerMinute } = options;
  const limits: { usd?: number; tokens?: number; tasks?: number } = {};
  if (maxUsdPerMinute !== undefined) limits.usd = maxUsdPerMinute;
  if (maxTokensPerMinute !== undefined) limits.tokens = maxTokensPerMinute;
  if (maxTasksPerMinute !== undefined) limits.tasks = maxTasksPerMinute;
  return {
    windowMs,
    overflow,
    maxQueueDepth: overflow.kind === 'queue' ? overflow.maxQueueDepth : 0,
    capUsdNano: maxUsdPerMinute === undefined ? undefined : usdToNano(maxUsdPerMinute),
    capTokens: maxTokensPerMinute,
    capTasks: maxTasksPerMinute,
    capped: maxUsdPerMinute !== undefined || maxTokensPerMinute !== undefined || maxTasksPerMinute !== undefined,
    limits,
  };
}
