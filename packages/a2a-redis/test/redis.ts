import { REDIS_URL, startTcpProxy } from '@a2aplane/test-utils';
import { createClient } from 'redis';

export { REDIS_URL, testKeyPrefix } from '@a2aplane/test-utils';

export type TestRedisClient = ReturnType<typeof createClient>;

/**
 * Connects a client to the test Redis, or throws an error naming the suite and how to start
 * Redis: a suite that needs Redis fails loudly instead of skipping when none is there.
 */
export async function connectTestRedis(suite: string, options: { name?: string } = {}): Promise<TestRedisClient> {
  const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw new Error(
      `[${suite}] needs Redis at ${REDIS_URL} and could not reach it (${error instanceof Error ? error.message : String(error)}). ` +
        'Start one: `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`, or set REDIS_URL.',
    );
  }
  // A reconnecting client from here on, so tests can cut the connection and watch it come back.
  await client.destroy();
  const reconnecting = createClient({
    url: REDIS_URL,
    ...(options.name === undefined ? {} : { name: options.name }),
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(50 * retries, 500) },
  });
  reconnecting.on('error', () => undefined);
  await reconnecting.connect();
  return reconnecting;
}

/**
 * Deletes every key under `prefix` (SCAN, not KEYS, so a shared Redis isn't blocked). A large COUNT:
 * the shared Redis may hold millions of other runs' keys (a bench that just ran), and SCAN walks them all.
 */
export async function cleanKeys(client: TestRedisClient | undefined, prefix: string): Promise<void> {
  if (client === undefined) return; // never connected: nothing was written
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 10_000 })) {
    if (keys.length > 0) await client.del(keys);
  }
}

/**
 * A TCP proxy in front of the test Redis that a test can cut (`down`: every connection dropped,
 * new ones refused) and restore (`up`, same port): a Redis outage without touching the real one.
 */
export interface RedisProxy {
  url: string;
  /** Drops every connection and refuses new ones. */
  down(): Promise<void>;
  /** Accepts connections again, on the same port (and ends a stall). */
  up(): Promise<void>;
  /** Keeps connections open but forwards nothing: a Redis that accepted a command and never answers. */
  stall(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(REDIS_URL);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  const auth = target.username || target.password ? `${target.username}:${target.password}@` : '';
  return {
    url: `redis://${auth}127.0.0.1:${proxy.port}${target.pathname}`,
    down: () => proxy.down(),
    up: () => proxy.up(),
    stall: () => proxy.stall(),
    close: () => proxy.close(),
  };
}
