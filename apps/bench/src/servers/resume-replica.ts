// One replica of the replicas-resume suite: a child process the suite forks (bundled once with
// esbuild, so a restart costs a plain Node start) and SIGKILLs mid-stream. Its tasks, event logs,
// live streams and cancels live in Redis under RESUME_KEY_PREFIX, shared with the other replicas.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } from '@a2aplane/a2a-redis';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';

const keyPrefix = process.env.RESUME_KEY_PREFIX;
if (!keyPrefix) throw new Error('expected RESUME_KEY_PREFIX (the key prefix the replicas share)');
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `bench-resume-${process.pid}` });
await client.connect();

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
    // Short lifetimes: a killed runner leaves its task live; the suite also deletes its prefix.
    store: createRedisTaskStore({ client, keyPrefix, ttlMs: 60_000, liveTtlMs: 120_000 }),
    eventBus: createRedisTaskEventBus({ client, keyPrefix, retentionMs: 60_000, liveTtlMs: 120_000 }),
  });
  http.on('request', createNodeHttpHandler(server, { heartbeatMs: 0 }));
  const stop = async (): Promise<void> => {
    await server.close();
    http.closeAllConnections();
    http.close();
    client.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  process.send?.({ type: 'ready', url });
});
