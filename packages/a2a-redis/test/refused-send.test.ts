import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentExecutor, createA2AServer, createAgentCard, createNodeHttpHandler, type TaskStore } from '@a2aplane/a2a-server-express';
import { countingExecutor, refusedSendsScenario } from '@a2aplane/test-utils';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisTaskStore, type RedisTaskStoreOptions } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

let client: TestRedisClient;
const prefixes: string[] = [];
beforeAll(async () => {
  client = await connectTestRedis('a2a-redis refused sends');
});
afterAll(async () => {
  for (const prefix of prefixes) await cleanKeys(client, prefix);
  await client.quit();
});

/** A server on the Redis store and bus, on 127.0.0.1:0: its JSON-RPC URL. */
async function start(options: Omit<RedisTaskStoreOptions, 'client' | 'keyPrefix'>, executor: AgentExecutor) {
  const keyPrefix = testKeyPrefix('refused');
  prefixes.push(keyPrefix);
  const store: TaskStore = createRedisTaskStore({ client, keyPrefix, ...options });
  const eventBus = createRedisTaskEventBus({ client, keyPrefix });
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: 'refused',
      description: 'counts its executions',
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
    }),
    executor,
    store,
    eventBus,
  });
  const http: Server = createServer(createNodeHttpHandler(server));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a/jsonrpc`,
    async close() {
      await server.close();
      await eventBus.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

describe('a refused SendMessage runs nothing on Redis (issue 31 item 4, needs Redis)', () => {
  it('20 capacity refusals: 0 executions started (the Redis store admits before the executor starts)', async () => {
    const counting = countingExecutor();
    const server = await start({ maxTasks: 1 }, counting.executor);
    try {
      await refusedSendsScenario({ url: server.url, counting, limit: 'maxTasks', refusals: 20 });
    } finally {
      counting.release();
      await server.close();
    }
  });

  it("a caller past its live-task share is refused with the share's reason, and nothing runs", async () => {
    const counting = countingExecutor();
    const server = await start({ maxTasksPerOwner: 1 }, counting.executor);
    try {
      await refusedSendsScenario({ url: server.url, counting, limit: 'maxTasksPerOwner', refusals: 5, message: /share of the store/ });
    } finally {
      counting.release();
      await server.close();
    }
  });
});
