import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Task } from '@a2aplane/a2a-types';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aExpress } from '../src/express/index.js';
import { type A2AServerOptions, type AgentExecutor, createA2AServer, createNodeHttpHandler, InMemoryTaskStore } from '../src/index.js';
import { echoExecutor, testCard, userMessage, V1 } from './helpers.js';

type Binding = 'node:http' | 'express';
const BINDINGS: Binding[] = ['node:http', 'express'];

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of opened.splice(0)) await server.close();
});

async function start(binding: Binding, options: Partial<A2AServerOptions> = {}): Promise<string> {
  const server = createA2AServer({ card: testCard(), executor: echoExecutor, ...options });
  let http: Server;
  if (binding === 'express') {
    const app = express();
    app.use(a2aExpress(server));
    http = createServer(app);
  } else {
    http = createServer(createNodeHttpHandler(server));
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  opened.push({
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const nestedObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

async function postRpc(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 }, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function postRest(url: string, path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/a2a/rest${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...V1 }, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe.each(BINDINGS)('hostile input shapes (%s)', (binding) => {
  it('deep nesting in metadata is invalid params (-32602) with the request id, over JSON-RPC', async () => {
    const url = await start(binding);
    const message = { ...userMessage('deep'), metadata: { deep: nested(2_000) } };
    const { status, json } = await postRpc(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 'deep-1', method: 'SendMessage', params: { message } }),
    );
    expect(status).toBe(200);
    expect(json.id).toBe('deep-1');
    expect(json.error).toMatchObject({ code: -32602 });
    expect((json.error as { message: string }).message).toMatch(/deeper than 64/);
  });

  it('deep nesting in a data part (60 KB, 30 000 levels) is HTTP 400 over REST, and over v0.3 JSON-RPC keeps the id', async () => {
    const url = await start(binding);
    const depth = 30_000;
    const part = `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const body = `{"message":{"messageId":"m","role":"ROLE_USER","parts":[${part}]}}`;
    expect(body.length).toBeGreaterThan(60_000);
    const viaRest = await postRest(url, '/message:send', body);
    expect(viaRest.status).toBe(400);
    expect(viaRest.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const v03 = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":{"x":${nestedObject(depth)}}}]}}}`,
    });
    const json = (await v03.json()) as Record<string, unknown>;
    expect(json.id).toBe(7);
    expect(json.error).toMatchObject({ code: -32602 });
  });

  it('strings and arrays over the configured limits are invalid params', async () => {
    const url = await start(binding, { inputLimits: { maxStringLength: 1_000, maxItems: 50 } });
    const long = await postRpc(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x'.repeat(1_001)) } }),
    );
    expect(long.json).toMatchObject({ id: 1, error: { code: -32602 } });
    const wide = await postRpc(
      url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendMessage',
        params: { message: { ...userMessage('x'), metadata: { list: new Array(51).fill(0) } } },
      }),
    );
    expect(wide.json).toMatchObject({ id: 2, error: { code: -32602 } });
    const fits = await postRpc(
      url,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: userMessage('x'.repeat(1_000)) } }),
    );
    expect(fits.json.result).toBeDefined();
  });

  it('REST reads only own body fields: a message only under __proto__ is refused, as over JSON-RPC', async () => {
    const url = await start(binding);
    const message = JSON.stringify(userMessage('proto'));
    const viaRest = await postRest(url, '/message:send', `{"__proto__":{"message":${message}}}`);
    expect(viaRest.status).toBe(400);
    const viaRpc = await postRpc(url, `{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"__proto__":{"message":${message}}}}`);
    expect(viaRpc.json).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  it('an inline push config to the metadata address is refused like CreateTaskPushNotificationConfig, with no option set', async () => {
    const url = await start(binding);
    const config = { url: 'http://169.254.169.254/latest', token: 't' };
    const inline = await postRpc(
      url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'p',
        method: 'SendMessage',
        params: { message: userMessage('x'), configuration: { taskPushNotificationConfig: config } },
      }),
    );
    expect(inline.json).toMatchObject({ id: 'p', error: { code: -32602 } });
    expect((inline.json.error as { message: string }).message).toMatch(/Webhook URL rejected/);
    const tasks = (await postRpc(url, JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'ListTasks', params: {} }))).json.result as {
      tasks: Task[];
    };
    expect(tasks.tasks).toHaveLength(0);
  });
});

describe('failures on the request path end the task, never the process', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  async function withUnhandledWatch(run: () => Promise<void>): Promise<void> {
    process.on('unhandledRejection', onUnhandled);
    try {
      await run();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      unhandled.length = 0;
    }
  }

  it('an executor that throws after publishing deep data: the task ends FAILED, onError hears it', async () => {
    await withUnhandledWatch(async () => {
      const errors: string[] = [];
      const executor: AgentExecutor = {
        async execute(context, events) {
          events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
          // Executor-made data is not input: the store's copy overflows on it.
          events.publish({
            taskId: context.taskId,
            contextId: context.contextId,
            artifact: { artifactId: 'a', parts: [{ data: nested(200_000) }] },
          });
          throw new Error('agent crashed');
        },
      };
      const url = await start('node:http', { executor, onError: (message) => errors.push(message) });
      const { json } = await postRpc(
        url,
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x') } }),
      );
      expect((json.result as { task: Task }).task.status.state).toBe('TASK_STATE_FAILED');
      expect(errors).toContain('executor failed');
      expect(errors.some((message) => message.startsWith('event processing failed'))).toBe(true);
    });
  });

  it('a store that fails every write after the first: the caller gets an error, the process lives', async () => {
    await withUnhandledWatch(async () => {
      const store = new InMemoryTaskStore();
      const upsert = store.upsert.bind(store);
      // Takes a task's first write while it is SUBMITTED, refuses everything else (the executor's
      // burst folded into one write included, which then goes event by event).
      store.upsert = async (record, options) => {
        if (options.expectedRevision > 0 || record.task.status.state !== 'TASK_STATE_SUBMITTED') throw new Error('disk gone');
        return upsert(record, options);
      };
      const errors: string[] = [];
      const url = await start('node:http', { store, onError: (message) => errors.push(message) });
      const { json } = await postRpc(
        url,
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: userMessage('x') } }),
      );
      expect(json.id).toBe(2);
      // The task could not even be stored FAILED: the caller hears an internal error, not a hang.
      expect(json.error).toMatchObject({ code: -32603, message: 'The task could not be stored' });
      expect(errors.some((message) => message.startsWith('event processing failed'))).toBe(true);
    });
  });

  it('an onError that throws and a governance finish that rejects are contained', async () => {
    await withUnhandledWatch(async () => {
      const executor: AgentExecutor = {
        async execute() {
          throw new Error('boom');
        },
      };
      const url = await start('node:http', {
        executor,
        onError: () => {
          throw new Error('logger down');
        },
        governance: {
          admit: async () => ({
            context: { traceId: 't', depth: 0, path: [] } as never,
            signal: new AbortController().signal,
            meterTokens: () => undefined,
            finish: async () => {
              throw new Error('ledger down');
            },
          }),
          readTaskContext: () => ({ ok: true, context: undefined }),
        },
      });
      const { json } = await postRpc(
        url,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: userMessage('x') } }),
      );
      expect(json.id).toBe(3);
      expect(json.error).toBeDefined();
      expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(200);
    });
  });
});
