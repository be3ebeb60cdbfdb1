export { type BudgetLedgerContractOptions, describeBudgetLedgerContract } from './budget-ledger-contract.js';
export { type ConcurrencySlotsContractOptions, describeConcurrencySlotsContract } from './concurrency-slots-contract.js';
export { ContractAssertionError } from './assert.js';
export type { ContractTestApi } from './contract-api.js';
export {
  describeRateLimiterContract,
  type RateLimiterContractOptions,
  type RateLimiterLike,
  type RateLimitVerdictLike,
} from './rate-limiter-contract.js';
