// Task store, event bus, shared connection and failure handling (redis19).
export { createRedisTaskEventBus, type RedisTaskEventBus, type RedisTaskEventBusOptions } from './bus/redis-task-event-bus.js';
export type { OrphanRecoveryOptions } from './bus/replica-lease.js';
export {
  createRedisConnection,
  type RedisClientLike,
  type RedisConnection,
  type RedisConnectionOptions,
} from './connection.js';
export { ReplicaLostError, type RedisUnavailableCause, RedisUnavailableError } from './errors.js';
export type { RedisKeys } from './keys.js';
export { createRedisTaskStore, type RedisTaskStore, type RedisTaskStoreOptions } from './store/redis-task-store.js';
// Governance: budget ledger, rate limiter, concurrency slots (redis19gov).
export { createRedisBudgetLedger, type RedisBudgetLedger, type RedisBudgetLedgerOptions } from './governance/budget-ledger.js';
export { createRedisConcurrencySlots, type RedisConcurrencySlotsOptions } from './governance/concurrency-slots.js';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './governance/rate-limiter.js';
export type { RedisCommandClient, RedisGovernanceOptions } from './governance/redis-script.js';
// Verified callers: the replay cache every replica shares.
export { createRedisNonceCache, type RedisNonceCacheOptions } from './nonce-cache.js';
// Push outbox: pending push deliveries another replica takes over when one dies (issue 31).
export { createRedisPushOutbox, type RedisPushOutboxOptions } from './push/redis-push-outbox.js';
