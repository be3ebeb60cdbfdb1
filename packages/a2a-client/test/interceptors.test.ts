import { TaskNotFoundError } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { type AuthProvider, type CallOutcome, createA2AClient, type OutgoingCall } from '../src/index.js';
import { cardFor, json, rpcResult, startServer, type TestServer, task, userMessage } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

describe('call interceptors', () => {
  it('beforeCall sees method and params and adds headers; afterCall sees the validated result', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t-1'))));
    const seen: Array<OutgoingCall | CallOutcome> = [];
    const client = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall: (call) => {
          seen.push({ ...call });
          call.headers['X-Trace'] = `trace-${call.method}`;
        },
        afterCall: (outcome) => {
          seen.push(outcome);
        },
      },
    });
    await client.getTask({ id: 't-1' });
    expect(server.requests[0]?.headers['x-trace']).toBe('trace-GetTask');
    expect(seen[0]).toMatchObject({ method: 'GetTask', params: { id: 't-1' }, streaming: false });
    expect(seen[1]).toMatchObject({ method: 'GetTask', ok: true, result: { id: 't-1' } });
  });

  it('afterCall sees the error the caller gets', async () => {
    const server = await serve((req, res) =>
      json(res, 200, { jsonrpc: '2.0', id: (JSON.parse(req.body) as { id: string }).id, error: { code: -32001, message: 'no task' } }),
    );
    const outcomes: CallOutcome[] = [];
    const client = createA2AClient({ card: cardFor(server.url), interceptors: { afterCall: (o) => void outcomes.push(o) } });
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(TaskNotFoundError.isInstance(error)).toBe(true);
    expect(outcomes[0]?.ok).toBe(false);
    expect(outcomes[0]?.error).toBe(error);
  });

  it('beforeCall may replace the params; the replacement is validated', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t-2'))));
    const client = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall: (call) => {
          call.params = { ...call.params, historyLength: 3 };
        },
      },
    });
    await client.getTask({ id: 't-2' });
    expect((JSON.parse(server.requests[0]?.body ?? '{}') as { params: unknown }).params).toEqual({ id: 't-2', historyLength: 3 });
    const broken = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall: (call) => {
          call.params = { id: 42 };
        },
      },
    });
    await expect(broken.getTask({ id: 't-2' })).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(1);
  });

  it('several interceptors: before hooks in order, after hooks in reverse', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t-3'))));
    const order: string[] = [];
    const named = (name: string) => ({
      beforeCall: () => void order.push(`before ${name}`),
      afterCall: () => void order.push(`after ${name}`),
      beforeRequest: () => void order.push(`request ${name}`),
    });
    const client = createA2AClient({ card: cardFor(server.url), interceptors: [named('auth'), named('trace')] });
    await client.getTask({ id: 't-3' });
    expect(order).toEqual(['before auth', 'before trace', 'request auth', 'request trace', 'after trace', 'after auth']);
  });

  it('streams: beforeCall once, afterCall when the stream ends', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const { id } = JSON.parse(req.body) as { id: string };
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-4', 'TASK_STATE_COMPLETED') } })}\n\n`);
    });
    const calls: string[] = [];
    const client = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall: (c) => void calls.push(`before ${c.method} ${c.streaming}`),
        afterCall: (o) => void calls.push(`after ${o.ok}`),
      },
    });
    for await (const _event of client.sendStreamingMessage(userMessage())) calls.push('event');
    expect(calls).toEqual(['before SendStreamingMessage true', 'event', 'after true']);
  });
});

describe('interceptor edge cases', () => {
  it('refuses a hook that is not a function when the client is built', () => {
    const card = cardFor('http://agent.test');
    expect(() => createA2AClient({ card, interceptors: { beforeCall: 'nope' as never } })).toThrow(TypeError);
    expect(() => createA2AClient({ card, interceptors: [{}, { afterResponse: 42 as never }] })).toThrow(/interceptors\[1\]\.afterResponse/);
  });

  it('a hook that throws fails the call with its error, before anything is sent', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t-6'))));
    const refused = new Error('not allowed');
    const client = createA2AClient({
      card: cardFor(server.url),
      interceptors: {
        beforeCall: () => {
          throw refused;
        },
      },
    });
    await expect(client.getTask({ id: 't-6' })).rejects.toBe(refused);
    expect(server.requests).toHaveLength(0);
  });

  it('afterCall runs when the consumer stops a stream early', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const { id } = JSON.parse(req.body) as { id: string };
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-7') } })}\n\n`);
    });
    const outcomes: CallOutcome[] = [];
    const client = createA2AClient({ card: cardFor(server.url), interceptors: { afterCall: (o) => void outcomes.push(o) } });
    for await (const _event of client.sendStreamingMessage(userMessage())) break;
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ method: 'SendStreamingMessage', ok: true, streaming: true });
  });
});

describe('request signing seams', () => {
  it('an auth provider and a beforeRequest hook see method, URL, headers and the exact body sent', async () => {
    const server = await serve((req, res) => json(res, 200, rpcResult(req.body, task('t-5'))));
    const seen: Array<{ method: string; url: string; body: string | Uint8Array | undefined; auth: string | null }> = [];
    const auth: AuthProvider = {
      apply: (request) => {
        request.headers.set('authorization', 'Bearer x');
        seen.push({ method: request.method, url: request.url.href, body: request.body, auth: null });
      },
    };
    const client = createA2AClient({
      card: cardFor(server.url),
      auth,
      interceptors: {
        beforeRequest: (request) => {
          seen.push({ method: request.method, url: request.url.href, body: request.body, auth: request.headers.get('authorization') });
          request.headers.set('signature', `sig-of-${request.body?.length}`);
        },
      },
    });
    await client.getTask({ id: 't-5' });
    const received = server.requests[0];
    expect(seen[0]).toMatchObject({ method: 'POST', url: `${server.url}/a2a/jsonrpc`, body: received?.body });
    // The signer runs after auth: it sees the credentials it must cover.
    expect(seen[1]).toMatchObject({ method: 'POST', body: received?.body, auth: 'Bearer x' });
    expect(received?.headers.signature).toBe(`sig-of-${received?.body.length}`);
  });
});
