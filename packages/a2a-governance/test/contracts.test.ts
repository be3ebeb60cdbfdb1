import { afterEach, describe, it } from 'vitest';
import { createInMemoryBudgetLedger, createInMemoryConcurrencySlots } from '../src/index.js';
import { describeBudgetLedgerContract, describeConcurrencySlotsContract } from '../src/testing/index.js';

const vitest = { describe, it, afterEach };

describeBudgetLedgerContract('in-memory ledger', { create: (options) => createInMemoryBudgetLedger(options) }, vitest);

describeConcurrencySlotsContract('in-memory slots', { create: () => createInMemoryConcurrencySlots() }, vitest);
