import { createClient } from 'redis';

/** The node-redis client type this package works with. */
export type RedisConnection = ReturnType<typeof createClient>;

export interface RedisConnectionOptions {
  /** Default `redis://127.0.0.1:6379`. */
  url?: string;
}

/** Creates (does not connect) a node-redis client with the package's defaults. */
export function createRedisConnection(options: RedisConnectionOptions = {}): RedisConnection {
  return createClient({ url: options.url ?? 'redis://127.0.0.1:6379' });
}
