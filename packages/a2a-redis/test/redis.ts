import { randomUUID } from 'node:crypto';
import { createRedisConnection, type RedisConnection } from '../src/connection.js';

/** The Redis the tests use: `REDIS_URL`, default the machine's local one. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const START_HINT =
  'Start one with: redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no ' +
  '(or point REDIS_URL at a Redis 7). The @a2aplane/a2a-redis suites need a real Redis; they are never skipped.';

/** The URL without its password, for messages. */
const shownUrl = (): string => REDIS_URL.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

/** A key prefix no other run (or parallel worker) shares. */
export const testPrefix = (suite: string): string => `a2a-test:${process.pid}:${randomUUID()}:${suite}:`;

/**
 * A connected client for `suite`. When Redis can't be reached the suite FAILS with a message
 * naming it and how to start Redis.
 */
export async function connectTestRedis(suite: string, options: { name?: string } = {}): Promise<RedisConnection> {
  const client = createRedisConnection({ url: REDIS_URL, connectTimeoutMs: 1_500, ...options });
  try {
    // One attempt: a test run should fail fast, not reconnect forever.
    await Promise.race([client.connect(), new Promise((_, reject) => setTimeout(() => reject(new Error('connect timed out')), 2_000))]);
    await client.ping();
  } catch (error) {
    client.destroy();
    throw new Error(`${suite} needs Redis at ${shownUrl()} and could not reach it (${(error as Error).message}). ${START_HINT}`);
  }
  return client;
}

/** Deletes every key under `prefix` (SCAN, not KEYS, so a shared Redis isn't blocked). */
export async function cleanupPrefix(client: RedisConnection, prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) deleted += await client.unlink(keys);
  }
  return deleted;
}
