// Shared connection and failure handling (redis19).
export {
  createRedisConnection,
  guardClient,
  type RedisClientLike,
  type RedisConnection,
  type RedisConnectionOptions,
  withDeadline,
} from './connection.js';
export { REDIS_UNAVAILABLE_ENTRY, type RedisUnavailableCause, RedisUnavailableError } from './errors.js';
export { defineScript, type RedisScript } from './script.js';
