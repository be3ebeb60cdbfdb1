import type { MeterProvider } from '@opentelemetry/api';
import { ATTR_CURRENCY } from './attributes.js';
import type { BudgetView } from './types.js';

/** Remaining budget in the ledger's window (limit minus usage and reservations), per capped currency. */
export function observeBudget(meter: ReturnType<MeterProvider['getMeter']>, budget: BudgetView): void {
  const remaining = meter.createObservableGauge('a2a.budget.remaining', {
    description: 'Budget left in the ledger window (limit minus spend and reservations), by currency (usd, tokens)',
  });
  remaining.addCallback((result) => {
    const snapshot = budget.snapshot();
    const window = snapshot.window;
    if (window === undefined) return;
    const { limits, reserved } = snapshot;
    if (limits.usd !== undefined) result.observe(Math.max(0, limits.usd - window.usd - reserved.usd), { [ATTR_CURRENCY]: 'usd' });
    if (limits.tokens !== undefined) {
      result.observe(Math.max(0, limits.tokens - window.tokens - reserved.tokens), { [ATTR_CURRENCY]: 'tokens' });
    }
  });
}
