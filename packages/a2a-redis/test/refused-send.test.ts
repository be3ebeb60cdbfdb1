import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentExecutor, createA2AServer, createAgentCard, createNodeHttpHandler, type TaskStore } from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisTaskStore, type RedisTaskStoreOptions } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

/** An executor that counts its runs and holds each one live until `release`. */
function countingExecutor() {
  const runs = { started: 0 };
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const executor: AgentExecutor = {
    async execute(context, events) {
      runs.started += 1;
      events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
      await held;
      events.publish({ taskId: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    },
  };
  return { runs, executor, release: () => release() };
}

let client: TestRedisClient;
const prefixes: string[] = [];
beforeAll(async () => {
  client = await connectTestRedis('a2a-redis refused sends');
});
afterAll(async () => {
  for (const prefix of prefixes) await cleanKeys(client, prefix);
  await client.quit();
});

/** A server on the Redis store and bus, on 127.0.0.1:0; `send` posts a SendMessage and returns the JSON-RPC reply. */
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
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a/jsonrpc`;
  let id = 0;
  return {
    async send(text: string, returnImmediately = false) {
      const body = {
        jsonrpc: '2.0',
        id: ++id,
        method: 'SendMessage',
        params: {
          message: { messageId: `${keyPrefix}-${id}`, role: 'ROLE_USER', parts: [{ text }] },
          ...(returnImmediately ? { configuration: { returnImmediately: true } } : {}),
        },
      };
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify(body),
      });
      return (await response.json()) as { result?: unknown; error?: { message: string; data?: unknown } };
    },
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
    const { runs, executor, release } = countingExecutor();
    const server = await start({ maxTasks: 1 }, executor);
    try {
      expect((await server.send('live', true)).result).toBeDefined();
      expect(runs.started).toBe(1);
      for (let i = 0; i < 20; i++) {
        const refused = await server.send(`refused ${i}`);
        expect(JSON.stringify(refused.error)).toContain('RATE_LIMITED');
        expect(JSON.stringify(refused.error)).toContain('maxTasks');
      }
      // Let any execution that had been started in the background show up.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs.started).toBe(1);
    } finally {
      release();
      await server.close();
    }
  });

  it("a caller past its live-task share is refused with the share's reason, and nothing runs", async () => {
    const { runs, executor, release } = countingExecutor();
    const server = await start({ maxTasksPerOwner: 1 }, executor);
    try {
      expect((await server.send('live', true)).result).toBeDefined();
      for (let i = 0; i < 5; i++) {
        const refused = await server.send(`refused ${i}`);
        expect(JSON.stringify(refused.error)).toContain('maxTasksPerOwner');
        expect(refused.error?.message).toMatch(/share of the store/);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs.started).toBe(1);
    } finally {
      release();
      await server.close();
    }
  });
});
