import type { ServerResponse } from 'node:http';
import { InvalidAgentResponseError, TaskNotFoundError } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  apiKeyAuth,
  bearerAuth,
  createA2AClient,
  SseEventTooLargeError,
  StreamResumeExhaustedError,
} from '../src/index.js';
import { cardFor, json, type RecordedRequest, rpcResult, startServer, type TestServer, task, userMessage } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

const fastRetry = { initialDelayMs: 5, maxDelayMs: 20 };

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
}

function frame(res: ServerResponse, body: string, id: string | undefined, result: unknown): void {
  const request = JSON.parse(body) as { id: string };
  res.write(`${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n\n`);
}

const rpcMethod = (req: RecordedRequest): string => (JSON.parse(req.body) as { method: string }).method;

describe('retry policy', () => {
  it('503 then 200 is one logical SendMessage call that reuses the same messageId', async () => {
    let calls = 0;
    const server = await serve((req, res) => {
      calls++;
      if (calls === 1) return json(res, 503, { oops: true });
      json(res, 200, rpcResult(req.body, { task: task('t-1', 'TASK_STATE_COMPLETED') }));
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const result = await client.sendMessage(userMessage('msg-42'));
    expect(result.task?.id).toBe('t-1');
    expect(server.requests).toHaveLength(2);
    const ids = server.requests.map((r) => (JSON.parse(r.body) as { params: { message: { messageId: string } } }).params.message.messageId);
    expect(ids).toEqual(['msg-42', 'msg-42']);
  });

  it('400 without an A2A body is an A2ATransportError and is not retried', async () => {
    const server = await serve((_req, res) => json(res, 400, { nope: true }));
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect((error as A2ATransportError).status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('an A2A application error (TaskNotFound) comes back typed and is not retried', async () => {
    const server = await serve((req, res) =>
      json(res, 200, {
        jsonrpc: '2.0',
        id: (JSON.parse(req.body) as { id: string }).id,
        error: { code: -32001, message: 'Task not found' },
      }),
    );
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const error = await client.getTask({ id: 'missing' }).catch((e: unknown) => e);
    expect(TaskNotFoundError.isInstance(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('429 with Retry-After (seconds) waits at least that long, then retries', async () => {
    const times: number[] = [];
    const server = await serve((req, res) => {
      times.push(Date.now());
      if (times.length === 1) return json(res, 429, {}, { 'Retry-After': '1' });
      json(res, 200, rpcResult(req.body, task('t-1')));
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    await expect(client.getTask({ id: 't-1' })).resolves.toMatchObject({ id: 't-1' });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
  });

  it('gives up after the configured number of retries', async () => {
    const server = await serve((_req, res) => json(res, 502, {}));
    const client = createA2AClient({ card: cardFor(server.url), retry: { ...fastRetry, retries: 2 } });
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => A2ATransportError.isInstance(e));
    expect(server.requests).toHaveLength(3);
  });
});

describe('invalid responses (spec §9: JSON-RPC envelope)', () => {
  it('malformed JSON is an A2ATransportError, not a crash', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"jsonrpc": "2.0", "id": ');
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => A2ATransportError.isInstance(e));
  });

  it('a JSON-RPC id mismatch is an A2ATransportError', async () => {
    const server = await serve((_req, res) => json(res, 200, { jsonrpc: '2.0', id: 'someone-else', result: task('t') }));
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const error = await client.getTask({ id: 't' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/id does not match/);
  });

  it('a result that fails the operation schema is InvalidAgentResponseError', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, { id: 't', status: { state: 'NOT_A_STATE' } })));
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => InvalidAgentResponseError.isInstance(e));
  });
});

describe('timeouts and limits', () => {
  it('aborting through the signal fails with A2AAbortError', async () => {
    const server = await serve(() => undefined);
    const client = createA2AClient({ card: cardFor(server.url) });
    const controller = new AbortController();
    const pending = client.getTask({ id: 't' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toSatisfy((e: unknown) => A2AAbortError.isInstance(e));
  });

  it('a slow server fails with A2ATimeoutError', async () => {
    const server = await serve((req, res) => {
      setTimeout(() => {
        if (!res.destroyed) json(res, 200, rpcResult(req.body, task('t')));
      }, 2000);
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    await expect(client.getTask({ id: 't' }, { timeoutMs: 100 })).rejects.toSatisfy((e: unknown) => A2ATimeoutError.isInstance(e));
  });

  it('an oversize SSE event fails the stream with SseEventTooLargeError', async () => {
    const server = await serve((req, res) => {
      sse(res);
      frame(res, req.body, '1', { task: { ...task('t-1'), metadata: { blob: 'x'.repeat(5000) } } });
      res.end();
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry, maxEventBytes: 1024 });
    const consume = async () => {
      for await (const _ of client.sendStreamingMessage(userMessage())) {
        // drain
      }
    };
    await expect(consume()).rejects.toSatisfy((e: unknown) => SseEventTooLargeError.isInstance(e));
  });
});

describe('streaming with automatic resume (spec §3.1.6 SubscribeToTask, Last-Event-ID)', () => {
  const events = [
    { task: task('t-1', 'TASK_STATE_SUBMITTED') },
    { statusUpdate: { taskId: 't-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } },
    { artifactUpdate: { taskId: 't-1', contextId: 'ctx-1', artifact: { artifactId: 'a-1', parts: [{ text: 'part' }] } } },
    { statusUpdate: { taskId: 't-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } },
  ];

  it('resubscribes with Last-Event-ID after a drop; the consumer sees no duplicate and no gap', async () => {
    const server = await serve((req, res) => {
      sse(res);
      if (rpcMethod(req) === 'SendStreamingMessage') {
        frame(res, req.body, '1', events[0]);
        frame(res, req.body, '2', events[1]);
        setTimeout(() => res.destroy(), 20);
        return;
      }
      // Replays one event too many (id 2): the client must drop the duplicate.
      const after = Number(req.headers['last-event-id']);
      for (let i = after - 1; i < events.length; i++) frame(res, req.body, String(i + 1), events[i]);
      res.end();
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const seen: unknown[] = [];
    for await (const event of client.sendStreamingMessage(userMessage())) seen.push(event);
    expect(seen).toEqual(events);
    expect(server.requests.map(rpcMethod)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    expect(server.requests[1]!.headers['last-event-id']).toBe('2');
    expect(JSON.parse(server.requests[1]!.body).params).toEqual({ id: 't-1' });
  });

  it('resumes over HTTP+JSON with GET /tasks/{id}:subscribe and Last-Event-ID', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const send = (id: string, data: unknown) => res.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
      if (req.url === '/rest/message:stream') {
        send('1', events[0]);
        send('2', events[1]);
        setTimeout(() => res.destroy(), 20);
        return;
      }
      send('3', events[2]);
      send('4', events[3]);
      res.end();
    });
    const card = cardFor(server.url, [{ url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    const client = createA2AClient({ card, retry: fastRetry });
    const seen: unknown[] = [];
    for await (const event of client.sendStreamingMessage(userMessage())) seen.push(event);
    expect(seen).toEqual(events);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /rest/message:stream', 'GET /rest/tasks/t-1:subscribe']);
    expect(server.requests[1]!.headers['last-event-id']).toBe('2');
  });

  it('delivers the final task when the task finished while the stream was down', async () => {
    const server = await serve((req, res) => {
      const method = rpcMethod(req);
      if (method === 'SendStreamingMessage') {
        sse(res);
        frame(res, req.body, '1', events[0]);
        setTimeout(() => res.destroy(), 10);
        return;
      }
      const { id } = JSON.parse(req.body) as { id: string };
      if (method === 'SubscribeToTask') {
        return json(res, 200, { jsonrpc: '2.0', id, error: { code: -32004, message: 'Task is in a terminal state' } });
      }
      json(res, 200, { jsonrpc: '2.0', id, result: task('t-1', 'TASK_STATE_COMPLETED') });
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: fastRetry });
    const seen: unknown[] = [];
    for await (const event of client.sendStreamingMessage(userMessage())) seen.push(event);
    expect(seen).toEqual([events[0], { task: task('t-1', 'TASK_STATE_COMPLETED') }]);
    expect(server.requests.map(rpcMethod)).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'GetTask']);
  });

  it('gives up with StreamResumeExhaustedError after maxAttempts drops', async () => {
    const server = await serve((req, res) => {
      sse(res);
      if (rpcMethod(req) === 'SendStreamingMessage') frame(res, req.body, '1', events[0]);
      setTimeout(() => res.destroy(), 10);
    });
    const client = createA2AClient({ card: cardFor(server.url), retry: { ...fastRetry, retries: 0 }, resume: { maxAttempts: 2 } });
    const consume = async () => {
      for await (const _ of client.sendStreamingMessage(userMessage())) {
        // drain
      }
    };
    await expect(consume()).rejects.toSatisfy((e: unknown) => StreamResumeExhaustedError.isInstance(e));
    expect(server.requests.filter((r) => rpcMethod(r) === 'SubscribeToTask')).toHaveLength(2);
  });

  it('breaking out of the loop aborts the request', async () => {
    let closed = false;
    const server = await serve((req, res) => {
      sse(res);
      frame(res, req.body, '1', events[0]);
      frame(res, req.body, '2', events[1]);
      res.on('close', () => {
        closed = true;
      });
    });
    const client = createA2AClient({ card: cardFor(server.url) });
    for await (const event of client.sendStreamingMessage(userMessage())) {
      expect(event.task?.id).toBe('t-1');
      break;
    }
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
  });
});

describe('transport selection and fallback (spec §8.3.2)', () => {
  it('falls back to HTTP+JSON when the JSON-RPC interface is down, with REST paths and tenant', async () => {
    const server = await serve((req, res) => {
      if (req.url.startsWith('/a2a/jsonrpc')) return json(res, 503, {});
      json(res, 200, task('t-9'));
    });
    const card = cardFor(server.url, [
      { url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
      { url: `${server.url}/old`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const client = createA2AClient({ card, retry: { ...fastRetry, retries: 1 } });
    await expect(client.getTask({ id: 't-9', historyLength: 2 })).resolves.toMatchObject({ id: 't-9' });
    const last = server.requests.at(-1)!;
    expect(last.method).toBe('GET');
    expect(last.url).toBe('/a2a/rest/acme/tasks/t-9?historyLength=2');
    expect(server.requests.filter((r) => r.url.startsWith('/old'))).toHaveLength(0);
    // The working interface is used first from now on.
    const before = server.requests.length;
    await client.getTask({ id: 't-9' });
    expect(server.requests.length - before).toBe(1);
  });

  it('does not fall back on an application error', async () => {
    const server = await serve((req, res) => {
      if (req.url.startsWith('/a2a/jsonrpc')) {
        return json(res, 200, {
          jsonrpc: '2.0',
          id: (JSON.parse(req.body) as { id: string }).id,
          error: { code: -32001, message: 'nope' },
        });
      }
      json(res, 200, task('t'));
    });
    const card = cardFor(server.url, [
      { url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    const client = createA2AClient({ card, retry: fastRetry });
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => TaskNotFoundError.isInstance(e));
    expect(server.requests).toHaveLength(1);
  });

  it('maps a REST google.rpc.Status error body to its class', async () => {
    const server = await serve((_req, res) =>
      json(res, 404, {
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: 'Task not found',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
        },
      }),
    );
    const card = cardFor(server.url, [{ url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    const client = createA2AClient({ card, retry: fastRetry });
    await expect(client.getTask({ id: 'x' })).rejects.toSatisfy((e: unknown) => TaskNotFoundError.isInstance(e));
    expect(server.requests).toHaveLength(1);
  });
});

describe('headers, governance propagation and auth', () => {
  it('sends A2A-Version, A2A-Extensions, traceparent and the ruvector context (ADR-159)', async () => {
    const server = await serve((req, res) =>
      json(res, 200, rpcResult(req.body, { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })),
    );
    const client = createA2AClient({ card: cardFor(server.url), extensions: ['urn:x:one', 'urn:x:two'], tenant: 'team' });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await client.sendMessage(userMessage(), {
      context: { traceId, parentTaskId: 'p-1', depth: 2, rootAgentId: 'root', visitedAgents: ['root', 'mid'] },
    });
    const req = server.requests[0]!;
    expect(req.headers['a2a-version']).toBe('1.0');
    expect(req.headers['a2a-extensions']).toBe('urn:x:one, urn:x:two');
    expect(req.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const params = JSON.parse(req.body).params;
    expect(params.tenant).toBe('team');
    expect(params.message.metadata.ruvector.context).toEqual({
      trace_id: traceId,
      parent_task_id: 'p-1',
      depth: 2,
      root_agent_id: 'root',
      visited_agents: ['root', 'mid'],
    });
  });

  it('keeps a traceparent the call carries (an interceptor) instead of a fresh span id on the lineage trace', async () => {
    const server = await serve((req, res) =>
      json(res, 200, rpcResult(req.body, { message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })),
    );
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const client = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall(call) {
          call.headers.TraceParent = traceparent;
        },
      },
    });
    await client.sendMessage(userMessage(), {
      context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 0, rootAgentId: 'root', visitedAgents: ['root'] },
    });
    expect(server.requests[0]?.headers.traceparent).toBe(traceparent);
  });

  it('bearerAuth refreshes once on 401 and retries', async () => {
    let token = 'old';
    const server = await serve((req, res) => {
      if (req.headers.authorization !== 'Bearer new') return json(res, 401, {});
      json(res, 200, rpcResult(req.body, task('t')));
    });
    const client = createA2AClient({
      card: cardFor(server.url),
      auth: bearerAuth({
        getToken: () => token,
        refresh: () => {
          token = 'new';
        },
      }),
    });
    await expect(client.getTask({ id: 't' })).resolves.toMatchObject({ id: 't' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('apiKeyAuth puts the key in the query and interceptors see every request', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t'))));
    const statuses: number[] = [];
    const client = createA2AClient({
      card: cardFor(server.url),
      auth: apiKeyAuth({ name: 'key', value: 's3cret', location: 'query' }),
      interceptors: {
        beforeRequest: (r) => r.headers.set('X-Seen', 'yes'),
        afterResponse: (r) => {
          statuses.push(r.status);
        },
      },
    });
    await client.getTask({ id: 't' });
    expect(server.requests[0]!.url).toBe('/a2a/jsonrpc?key=s3cret');
    expect(server.requests[0]!.headers['x-seen']).toBe('yes');
    expect(statuses).toEqual([200]);
  });

  it('throws TypeError for invalid params before sending', async () => {
    const server = await serve((_req, res) => json(res, 500, {}));
    const client = createA2AClient({ card: cardFor(server.url) });
    // @ts-expect-error: id is required
    await expect(client.getTask({})).rejects.toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(0);
  });

  it('throws TypeError for stream params that are not an object, before sending', async () => {
    const server = await serve((_req, res) => json(res, 500, {}));
    const client = createA2AClient({ card: cardFor(server.url) });
    for (const params of [null, 'x', []]) {
      const stream = client.sendStreamingMessage(params as never);
      await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow(/expected params to be an object/);
      await expect(
        client
          .subscribeToTask(params as never)
          [Symbol.asyncIterator]()
          .next(),
      ).rejects.toBeInstanceOf(TypeError);
    }
    expect(server.requests).toHaveLength(0);
  });
});
