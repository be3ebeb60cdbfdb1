export { type RedisConnection, type RedisConnectionOptions, createRedisConnection } from './connection.js';
