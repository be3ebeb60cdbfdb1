// One replica of the replicas-resume suites, bundled once with esbuild (a restart is a plain Node start) and
// SIGKILLed mid-stream. Tasks, event logs, live streams and cancels live in Redis under RESUME_KEY_PREFIX, or with
// RESUME_BACKEND=postgres in PostgreSQL (POSTGRES_URL) in the schema RESUME_PG_SCHEMA, shared by the replicas.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createPostgresTaskEventBus, createPostgresTaskStore, createStaticKeyring } from '@a2aplane/a2a-postgres';
import { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } from '@a2aplane/a2a-redis';
import {
  type A2AServerOptions,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import pg from 'pg';
import { serve } from './common.js';

const keyPrefix = process.env.RESUME_KEY_PREFIX as string;
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `bench-resume-${process.pid}` });

/** Short lifetimes: a killed runner leaves its task live; the suite also deletes its prefix or schema. */
async function state(): Promise<Pick<A2AServerOptions, 'store' | 'eventBus'>> {
  const lifetimes = { liveTtlMs: 120_000 };
  if (process.env.RESUME_BACKEND !== 'postgres') {
    await client.connect();
    return {
      store: createRedisTaskStore({ client, keyPrefix, ttlMs: 60_000, ...lifetimes }),
      eventBus: createRedisTaskEventBus({ client, keyPrefix, retentionMs: 60_000, ...lifetimes }),
    };
  }
  const pool = new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 8 });
  pool.on('error', () => undefined);
  const schema = process.env.RESUME_PG_SCHEMA as string;
  const pushConfigKeys = createStaticKeyring({ currentKeyId: 'bench', keys: { bench: randomBytes(32) } });
  return {
    store: createPostgresTaskStore({ pool, schema, pushConfigKeys, ttlMs: 60_000, sweepIntervalMs: false, ...lifetimes }),
    eventBus: createPostgresTaskEventBus({ pool, schema, retentionMs: 60_000, ...lifetimes }),
  };
}

const options = await state();
const http = createServer();
serve(
  http,
  0,
  (baseUrl) => {
    const skills = [{ id: 's', name: 's', description: 's', tags: [] }];
    const card = createAgentCard({
      baseUrl,
      name: 'resume bench replica',
      description: 'streams paced events',
      skills,
      capabilities: { streaming: true },
    });
    const server = createA2AServer({
      card,
      ...options,
      // Streams `count` chunks (`e0`, `e1`, ...), one every `everyMs`, then completes.
      executor: {
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
      },
    });
    http.on('request', createNodeHttpHandler(server, { heartbeatMs: 0 }));
  },
  async () => {
    if (client.isOpen) client.destroy();
  },
);
