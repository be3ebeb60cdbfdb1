import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type A2AServer,
  type AuthenticationRequest,
  createA2AServer,
  createNodeHttpHandler,
  createTaskUpdater,
  type CoreRequest,
} from '../src/index.js';
import { createGate, echoExecutor, rpc, startServer, type TestServer, testCard, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;

describe('node:http binding: what each request carries into the core', () => {
  it('an authenticator sees lower-case headers, the query and the method, on the bare path and with a query', async () => {
    const seen: { headers: Record<string, string | undefined>; query: string; method: string }[] = [];
    server = await startServer({
      executor: echoExecutor,
      authenticate: async (request: AuthenticationRequest) => {
        seen.push({ headers: { ...request.headers }, query: request.query.toString(), method: request.method });
        return { id: request.headers['x-user'] ?? request.query.get('user') ?? 'nobody', scheme: 'test' };
      },
    });
    await rpc(server.url, 'ListTasks', {}, { 'X-User': 'alice', 'X-Multi': 'a' });
    const viaQuery = await fetch(`${server.url}/a2a/jsonrpc?user=bob&A2A-Version=1.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(((await viaQuery.json()) as Json).result).toBeDefined();
    expect(seen[0]).toMatchObject({
      headers: { 'x-user': 'alice', 'a2a-version': '1.0', 'content-type': 'application/json' },
      query: '',
      method: 'POST',
    });
    expect(seen[1]).toMatchObject({ query: 'user=bob&A2A-Version=1.0', method: 'POST' });
    expect(seen[1]?.headers['a2a-version']).toBeUndefined();
  });

  it('A2A-Version and A2A-Extensions are read from the query when the headers are missing', async () => {
    const versions: string[] = [];
    server = await startServer({
      executor: {
        async execute(context, events) {
          versions.push(`${context.version} ${context.extensions.join(',')}`);
          createTaskUpdater(context, events).complete();
        },
      },
    });
    const response = await fetch(`${server.url}/a2a/jsonrpc?A2A-Version=1.0&A2A-Extensions=urn:x,urn:y`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x') } }),
    });
    expect(((await response.json()) as Json).result).toBeDefined();
    expect(versions).toEqual(['1.0 urn:x,urn:y']);
  });

  it('content-length counts bytes, not characters', async () => {
    server = await startServer({ executor: echoExecutor });
    const response = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('héllo ✓ 🚀') } }),
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    const body = JSON.parse(new TextDecoder().decode(bytes)) as { result: { task: { artifacts: { parts: { text: string }[] }[] } } };
    expect(body.result.task.artifacts[0]?.parts[0]?.text).toBe('echo: héllo ✓ 🚀');
  });

  it('a blocking SendMessage whose HTTP client goes away releases its listener; the task goes on', async () => {
    const gate = createGate();
    server = await startServer({
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          await gate.wait;
          t.complete();
        },
      },
    });
    const abort = new AbortController();
    const pending = rpc(server.url, 'SendMessage', { message: userMessage('x') }, {}, abort.signal).catch((error: unknown) => error);
    for (let i = 0; i < 50 && server.server.stats().subscribers === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(server.server.stats().subscribers).toBe(1);
    abort.abort();
    await pending;
    for (let i = 0; i < 50 && server.server.stats().subscribers > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(server.server.stats().subscribers).toBe(0);
    gate.open();
    for (let i = 0; i < 50 && server.server.stats().liveTasks > 0; i++) await new Promise((r) => setTimeout(r, 5));
    const list = await rpc(server.url, 'ListTasks', {});
    expect(((list.body.result as Json).tasks as { status: { state: string } }[])[0]?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('CoreRequest.signal still aborts on disconnect for a server that wraps handle()', async () => {
    const core = createA2AServer({ card: testCard(), executor: echoExecutor });
    const signals: AbortSignal[] = [];
    const hold = createGate();
    const wrapped: A2AServer = {
      ...core,
      async handle(request: CoreRequest) {
        if (request.signal) signals.push(request.signal);
        await hold.wait;
        return core.handle(request);
      },
    };
    const http = createServer(createNodeHttpHandler(wrapped));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const abort = new AbortController();
      const pending = rpc(url, 'SendMessage', { message: userMessage('x') }, {}, abort.signal).catch((error: unknown) => error);
      for (let i = 0; i < 50 && signals.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(signals[0]?.aborted).toBe(false);
      abort.abort();
      await pending;
      for (let i = 0; i < 50 && !signals[0]?.aborted; i++) await new Promise((r) => setTimeout(r, 5));
      expect(signals[0]?.aborted).toBe(true);
      hold.open();
    } finally {
      await core.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('an unexpected failure after the envelope was read is answered with the request id, not null', async () => {
    const core = createA2AServer({ card: testCard(), executor: echoExecutor });
    const broken: A2AServer = {
      ...core,
      async handle() {
        throw new Error('a wrapper bug');
      },
    };
    const http = createServer(createNodeHttpHandler(broken));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const response = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'known-id', method: 'GetTask', params: { id: 'x' } }),
      });
      const body = (await response.json()) as Json;
      expect(body.id).toBe('known-id');
      expect(body.error).toMatchObject({ code: -32603 });
      expect(JSON.stringify(body)).not.toContain('a wrapper bug');
    } finally {
      await core.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
