export { type RedisConnection, type RedisConnectionOptions, createRedisConnection } from './connection.js';
// Governance: budget ledger, rate limiter, concurrency slots (redis19gov).
export { createRedisBudgetLedger, type RedisBudgetLedger, type RedisBudgetLedgerOptions } from './governance/budget-ledger.js';
export { createRedisConcurrencySlots, type RedisConcurrencySlotsOptions } from './governance/concurrency-slots.js';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './governance/rate-limiter.js';
export type { RedisCommandClient, RedisGovernanceOptions } from './governance/redis-script.js';
