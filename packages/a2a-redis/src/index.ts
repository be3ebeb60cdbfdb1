// Task store, event bus, shared connection and failure handling (redis19).
export { createRedisTaskEventBus, type RedisTaskEventBus, type RedisTaskEventBusOptions } from './bus/redis-task-event-bus.js';
export {
  createRedisConnection,
  guardClient,
  type RedisClientLike,
  type RedisConnection,
  type RedisConnectionOptions,
  withDeadline,
} from './connection.js';
export { REDIS_UNAVAILABLE_ENTRY, type RedisUnavailableCause, RedisUnavailableError } from './errors.js';
export type { RedisKeys } from './keys.js';
export { defineScript, type RedisScript } from './script.js';
export { createRedisTaskStore, type RedisTaskStore, type RedisTaskStoreOptions } from './store/redis-task-store.js';
