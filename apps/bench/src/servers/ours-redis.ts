// Our server on bare node:http with the Redis task store and event bus (@a2aplane/a2a-redis), as
// one replica of a cluster would run: REDIS_URL (default the local Redis), a key prefix per process.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } from '@a2aplane/a2a-redis';
import { createA2AServer, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import { parseServerArgs, serve } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `bench-${process.pid}` });
await client.connect();
const keyPrefix = `a2a-bench:${process.pid}:${globalThis.crypto.randomUUID()}:`;
// Short TTLs: the bench writes tens of thousands of tasks into a Redis other runs share, and every
// key of this process is gone two minutes after it stops.
const store = createRedisTaskStore({ client, keyPrefix, ttlMs: 60_000, liveTtlMs: 120_000, maxTasks: 1_000_000 });
const eventBus = createRedisTaskEventBus({ client, keyPrefix, retentionMs: 60_000, liveTtlMs: 120_000 });
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
serve(
  createServer((req, res) => handler(req, res)),
  args,
  () => 0,
  (baseUrl) => {
    handler = createNodeHttpHandler(createA2AServer({ ...oursOptions(baseUrl, args.mode, args.events, store, args.delayMs), eventBus }), {
      heartbeatMs: 0,
    });
  },
);
