// Where the replicas keep tasks and event logs: Redis (the default) or PostgreSQL (`--backend
// postgres`). Budget and concurrency slots stay on Redis either way (decision 0075).
import { randomBytes } from 'node:crypto';
import { createPostgresTaskEventBus, createPostgresTaskStore, createStaticKeyring, migrate } from '@a2aplane/a2a-postgres';
import { createRedisTaskEventBus, createRedisTaskStore, type RedisClientLike } from '@a2aplane/a2a-redis';
import type { TaskEventBus, TaskStore } from '@a2aplane/a2a-server-express';
import pg from 'pg';

export type ClusterBackend = 'redis' | 'postgres';

export const POSTGRES_URL_DEFAULT = 'postgres://postgres@127.0.0.1:5432/test';

export function parseBackend(value: string | undefined): ClusterBackend {
  if (value === undefined || value === 'redis') return 'redis';
  if (value === 'postgres') return 'postgres';
  throw new RangeError(`expected --backend redis or postgres, got ${JSON.stringify(value)}`);
}

/** A schema of the run's own on PostgreSQL, migrated; `drop` removes it. */
export async function preparePostgres(url: string): Promise<{ schema: string; pushKey: string; drop(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  const schema = `cluster_${randomBytes(6).toString('hex')}`;
  await migrate(pool, { schema });
  return {
    schema,
    pushKey: randomBytes(32).toString('base64'),
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** The store and bus of one replica on the chosen backend, and what to close when it stops. */
export function replicaState(
  backend: ClusterBackend,
  redis: { client: RedisClientLike; keyPrefix: string },
  env: NodeJS.ProcessEnv,
): { store: TaskStore; eventBus: TaskEventBus; close(): Promise<void> } {
  if (backend === 'redis') {
    return {
      store: createRedisTaskStore(redis),
      eventBus: createRedisTaskEventBus(redis),
      close: async () => {},
    };
  }
  const pool = new pg.Pool({ connectionString: env.POSTGRES_URL ?? POSTGRES_URL_DEFAULT, max: 12 });
  pool.on('error', () => undefined);
  const schema = env.CLUSTER_SCHEMA as string;
  const pushConfigKeys = createStaticKeyring({ currentKeyId: 'demo', keys: { demo: env.CLUSTER_PUSH_KEY as string } });
  const store = createPostgresTaskStore({ pool, schema, pushConfigKeys });
  const eventBus = createPostgresTaskEventBus({ pool, schema });
  return {
    store,
    eventBus,
    async close() {
      // The bus holds a pool connection (LISTEN) until it closes: pool.end() would wait for it.
      await eventBus.close();
      store.close();
      await pool.end().catch(() => undefined);
    },
  };
}
