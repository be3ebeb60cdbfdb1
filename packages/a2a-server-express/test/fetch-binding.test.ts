import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../src/core/types.js';
import { createFetchHandler } from '../src/fetch/index.js';
import { createA2ARequestHandler, createA2AServer, createTaskUpdater, SlowConsumerError } from '../src/index.js';
import { createSseStream } from '../src/sse/sse-stream.js';
import { createGate, echoExecutor, testCard, userMessage, V1 } from './helpers.js';

const base = 'http://agent.test';
const rpcRequest = (method: string, params: unknown, init: RequestInit = {}): Request =>
  new Request(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', ...V1, ...(init.headers as Record<string, string>) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('createFetchHandler', () => {
  it('resolves undefined for a path it does not own, a Response for each of its own', async () => {
    const handle = createFetchHandler(createA2AServer({ card: testCard(), executor: echoExecutor }));
    expect(await handle(new Request(`${base}/app/page`))).toBeUndefined();
    expect(await handle(new Request(`${base}/a2a/restless`))).toBeUndefined();
    expect((await handle(new Request(`${base}/.well-known/agent-card.json`)))?.status).toBe(200);
    expect((await handle(new Request(`${base}/a2a/rest/nothing`)))?.status).toBe(404);
    const rooted = createFetchHandler(createA2AServer({ card: testCard(), executor: echoExecutor }), { restPath: '/' });
    expect(await rooted(new Request(`${base}/app/page`))).toBeUndefined();
    expect((await rooted(new Request(`${base}/tasks/abc`)))?.status).toBe(404);
  });

  it('a blocking SendMessage whose request signal aborts stops waiting; the task goes on', async () => {
    const gate = createGate();
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          const task = createTaskUpdater(context, events);
          task.submit();
          await gate.wait;
          task.complete();
        },
      },
    });
    const handle = createFetchHandler(server);
    const abort = new AbortController();
    const pending = handle(rpcRequest('SendMessage', { message: userMessage('x') }, { signal: abort.signal }));
    await until(() => server.stats().subscribers === 1);
    expect(server.stats().subscribers).toBe(1);
    abort.abort();
    const response = (await pending) as Response;
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Request aborted');
    expect(server.stats().subscribers).toBe(0);
    gate.open();
    await until(() => server.stats().liveTasks === 0);
    expect(server.stats().liveTasks).toBe(0);
    await server.close();
  });

  it('the request signal ends a stream and releases its subscription', async () => {
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          createTaskUpdater(context, events).submit();
          await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
        },
      },
    });
    const handle = createFetchHandler(server);
    const abort = new AbortController();
    const response = (await handle(
      rpcRequest('SendStreamingMessage', { message: userMessage('x') }, { signal: abort.signal }),
    )) as Response;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^id: /);
    expect(server.stats().subscribers).toBe(1);
    abort.abort();
    expect((await reader.read()).done).toBe(true);
    await until(() => server.stats().subscribers === 0);
    expect(server.stats().subscribers).toBe(0);
    await server.close();
  });

  it('sends no CORS header unless the option is given', async () => {
    const handle = createFetchHandler(createA2AServer({ card: testCard(), executor: echoExecutor }));
    const preflight = (await handle(
      new Request(`${base}/a2a/jsonrpc`, {
        method: 'OPTIONS',
        headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
      }),
    )) as Response;
    expect(preflight.status).toBe(405);
    expect([...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const call = (await handle(
      rpcRequest('SendMessage', { message: userMessage('x') }, { headers: { origin: 'http://app.example' } }),
    )) as Response;
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS with credentials only when asked; the option is checked when the handler is created', async () => {
    const server = createA2AServer({ card: testCard(), executor: echoExecutor });
    const handle = createFetchHandler(server, { cors: { origins: ['https://app.example'], credentials: true, methods: ['POST'] } });
    const preflight = (await handle(
      new Request(`${base}/a2a/rest/message:send`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      }),
    )) as Response;
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    const call = (await handle(
      rpcRequest('SendMessage', { message: userMessage('x') }, { headers: { origin: 'https://app.example' } }),
    )) as Response;
    expect(call.headers.get('access-control-allow-credentials')).toBe('true');
    expect(call.headers.get('access-control-expose-headers')).toBe('retry-after, A2A-Extensions, www-authenticate');
    const open = createFetchHandler(server, { cors: { origins: '*' } });
    const any = (await open(
      rpcRequest('SendMessage', { message: userMessage('x') }, { headers: { origin: 'https://any.example' } }),
    )) as Response;
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
    expect(any.headers.get('access-control-allow-credentials')).toBeNull();
    for (const create of [createFetchHandler, createA2ARequestHandler]) {
      expect(() => create(server, { cors: { origins: '*', credentials: true } })).toThrow(TypeError);
      expect(() => create(server, { cors: { origins: ['https://app.example/'] } })).toThrow(/origin/);
      expect(() => create(server, { cors: { origins: ['https://app.example'], headers: ['bad header'] } })).toThrow(TypeError);
    }
  });
});

describe('createSseStream', () => {
  const frames = { frame: (event: StreamEvent) => event.data, errorFrame: () => ({ error: 'failed' }) };

  it('pulls from the source only as fast as the reader reads (backpressure)', async () => {
    let pulled = 0;
    async function* source(): AsyncGenerator<StreamEvent> {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield { id: String(i), data: { n: i } } as unknown as StreamEvent;
      }
    }
    const stream = createSseStream(source(), { ...frames, heartbeatMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pulled).toBeLessThanOrEqual(2);
    const text = await new Response(stream).text();
    expect(text.split('\n\n').filter((block) => block.startsWith('id: '))).toHaveLength(1000);
    expect(pulled).toBe(1000);
  });

  it('heartbeats while the source is quiet, ends with an error event or the slow-consumer comment', async () => {
    const gate = createGate();
    async function* quiet(): AsyncGenerator<StreamEvent> {
      await gate.wait;
      yield* [];
      throw new Error('internal detail');
    }
    const stream = createSseStream(quiet(), { ...frames, heartbeatMs: 5 });
    const reader = stream.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': heartbeat\n\n');
    gate.open();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest.endsWith('data: {"error":"failed"}\n\n')).toBe(true);
    expect(rest).not.toContain('internal detail');
    async function* slow(): AsyncGenerator<StreamEvent> {
      yield* [];
      throw new SlowConsumerError();
    }
    const ended = await new Response(createSseStream(slow(), { ...frames, heartbeatMs: 0 })).text();
    expect(ended).toMatch(/^: .+\n\n$/);
  });

  it('cancelling the stream returns the source iterator', async () => {
    let returned = false;
    const source: AsyncIterable<StreamEvent> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<StreamEvent>>(() => undefined),
        return: async () => {
          returned = true;
          return { done: true, value: undefined };
        },
      }),
    };
    const stream = createSseStream(source, { ...frames, heartbeatMs: 0 });
    await stream.cancel();
    expect(returned).toBe(true);
  });
});
