// One replica of the replicas-resume suite: a child process the suite forks (bundled once with
// esbuild, so a restart costs a plain Node start) and SIGKILLs mid-stream. Its tasks, event logs,
// live streams and cancels live in Redis under RESUME_KEY_PREFIX, or with RESUME_BACKEND=postgres
// in PostgreSQL (POSTGRES_URL) in the schema RESUME_PG_SCHEMA, shared with the other replicas.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPostgresTaskEventBus, createPostgresTaskStore, createStaticKeyring } from '@a2aplane/a2a-postgres';
import { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } from '@a2aplane/a2a-redis';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  type TaskEventBus,
  type TaskStore,
} from '@a2aplane/a2a-server-express';
import pg from 'pg';

const keyPrefix = process.env.RESUME_KEY_PREFIX;
if (!keyPrefix) throw new Error('expected RESUME_KEY_PREFIX (the key prefix the replicas share)');
const onPostgres = process.env.RESUME_BACKEND === 'postgres';
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `bench-resume-${process.pid}` });
if (!onPostgres) await client.connect();
const pool = onPostgres ? new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 8 }) : undefined;
pool?.on('error', () => undefined);

/** Short lifetimes: a killed runner leaves its task live; the suite also deletes its prefix or schema. */
function state(): { store: TaskStore; eventBus: TaskEventBus } {
  if (pool === undefined) {
    return {
      store: createRedisTaskStore({ client, keyPrefix: keyPrefix as string, ttlMs: 60_000, liveTtlMs: 120_000 }),
      eventBus: createRedisTaskEventBus({ client, keyPrefix: keyPrefix as string, retentionMs: 60_000, liveTtlMs: 120_000 }),
    };
  }
  const schema = process.env.RESUME_PG_SCHEMA as string;
  const pushConfigKeys = createStaticKeyring({ currentKeyId: 'bench', keys: { bench: randomBytes(32) } });
  return {
    store: createPostgresTaskStore({ pool, schema, pushConfigKeys, ttlMs: 60_000, liveTtlMs: 120_000, sweepIntervalMs: false }),
    eventBus: createPostgresTaskEventBus({ pool, schema, retentionMs: 60_000, liveTtlMs: 120_000 }),
  };
}

/** Streams `count` chunks (`e0`, `e1`, ...), one every `everyMs`, then completes. */
const executor: AgentExecutor = {
  async execute(context, events) {
    const meta = (context.message.metadata ?? {}) as { count?: number; everyMs?: number };
    const count = Number(meta.count ?? 20);
    const t = createTaskUpdater(context, events);
    t.submit();
    t.startWork();
    for (let i = 0; i < count && !context.signal.aborted; i++) {
      await new Promise((resolve) => setTimeout(resolve, Number(meta.everyMs ?? 5)));
      t.addArtifact([{ text: `e${i}` }], { artifactId: 'a', append: i > 0, lastChunk: i === count - 1 });
    }
    t.complete();
  },
};

const http = createServer();
http.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl: url,
      name: 'resume bench replica',
      description: 'streams paced events',
      skills: [{ id: 's', name: 's', description: 's', tags: [] }],
      capabilities: { streaming: true },
    }),
    executor,
    ...state(),
  });
  http.on('request', createNodeHttpHandler(server, { heartbeatMs: 0 }));
  const stop = async (): Promise<void> => {
    await server.close();
    http.closeAllConnections();
    http.close();
    if (client.isOpen) client.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  process.send?.({ type: 'ready', url });
});
