import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../src/index.js';
import { cardFor, task } from './helpers/server.js';
import { causedBy, loadFailure } from './helpers/chunks.js';

// The HTTP+JSON transport with its route table and request builder is a chunk loaded when its
// interface is bound (decisions 0044, 0050). These tests load a fresh copy of the package with that
// chunk failing, as a browser does when the download fails.
const CHUNK = '../src/transports/rest.js';

afterEach(() => {
  vi.doUnmock(CHUNK);
  vi.resetModules();
});

async function freshPackage(failing: boolean): Promise<typeof import('../src/index.js')> {
  vi.resetModules();
  if (failing)
    vi.doMock(CHUNK, () => {
      throw loadFailure;
    });
  return import('../src/index.js');
}

const restCard = cardFor('http://agent.test', [{ url: 'http://agent.test/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);

function recordingFetch(urls: string[]): FetchLike {
  return async (input, init) => {
    urls.push(input instanceof Request ? `${input.method} ${input.url}` : `${init?.method} ${String(input)}`);
    return new Response(JSON.stringify(task('t-1', 'TASK_STATE_COMPLETED')), { headers: { 'Content-Type': 'application/json' } });
  };
}

describe('the HTTP+JSON transport loaded on demand', () => {
  it('a REST call loads it and sends the route of the operation', async () => {
    const { createA2AClient } = await freshPackage(false);
    const urls: string[] = [];
    const client = createA2AClient({ card: restCard, fetch: recordingFetch(urls), retry: { retries: 0 } });
    const result = await client.getTask({ id: 't-1', historyLength: 2 });
    expect(result.id).toBe('t-1');
    expect(urls).toEqual(['GET http://agent.test/rest/tasks/t-1?historyLength=2']);
  });

  it('a transport that cannot load fails the call with a retryable A2ATransportError, sends nothing, and the next call loads it', async () => {
    const { createA2AClient, A2ATransportError } = await freshPackage(true);
    const urls: string[] = [];
    const client = createA2AClient({ card: restCard, fetch: recordingFetch(urls), retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(urls).toEqual([]);

    vi.doUnmock(CHUNK);
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(urls).toEqual(['GET http://agent.test/rest/tasks/t-1']);
  });
});

describe('the call context writer loaded on demand', () => {
  const CONTEXT_CHUNK = '../src/call-context.js';
  const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 1, rootAgentId: 'root', visitedAgents: ['root'] };

  afterEach(() => {
    vi.doUnmock(CONTEXT_CHUNK);
  });

  it('a call with a context whose writer cannot load fails with a retryable A2ATransportError, sends nothing, and the next call loads it', async () => {
    vi.resetModules();
    vi.doMock(CONTEXT_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const bodies: string[] = [];
    const fetch: FetchLike = async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      bodies.push(text);
      const { id } = JSON.parse(text) as { id: unknown };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-1', 'TASK_STATE_COMPLETED') } }), {
        headers: { 'Content-Type': 'application/json' },
      });
    };
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch, retry: { retries: 0 } });
    const message = { message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };
    const error = await client.sendMessage(message, { context }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(bodies).toEqual([]);

    vi.doUnmock(CONTEXT_CHUNK);
    await client.sendMessage(message, { context });
    const sent = JSON.parse(bodies[0] ?? '{}') as { params: { message: { metadata: { ruvector: { context: { trace_id: string } } } } } };
    expect(sent.params.message.metadata.ruvector.context.trace_id).toBe(context.traceId);
  });
});

describe('the streaming code loaded on demand', () => {
  const LOOP_CHUNK = '../src/stream-calls.js';
  const READER_CHUNK = '../src/transports/event-stream.js';
  const message = { message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };

  afterEach(() => {
    vi.doUnmock(LOOP_CHUNK);
    vi.doUnmock(READER_CHUNK);
  });

  function streamingFetch(bodies: string[]): FetchLike {
    return async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      bodies.push(text);
      const { id } = JSON.parse(text) as { id: unknown };
      const frame = JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-1', 'TASK_STATE_COMPLETED') } });
      return new Response(`id: 1\ndata: ${frame}\n\n`, { headers: { 'Content-Type': 'text/event-stream' } });
    };
  }

  async function firstError(stream: AsyncIterable<unknown>): Promise<unknown> {
    try {
      for await (const _event of stream) return undefined;
    } catch (error) {
      return error;
    }
    return undefined;
  }

  async function states(stream: AsyncIterable<{ task?: { status: { state: string } } }>): Promise<string[]> {
    const out: string[] = [];
    for await (const event of stream) out.push(event.task?.status.state ?? '');
    return out;
  }

  it('a stream loop that cannot load fails the stream with a retryable A2ATransportError, sends nothing, and the next stream loads it', async () => {
    vi.resetModules();
    vi.doMock(LOOP_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const bodies: string[] = [];
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: streamingFetch(bodies), retry: { retries: 0 } });
    const error = await firstError(client.sendStreamingMessage(message));
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(bodies).toEqual([]);

    vi.doUnmock(LOOP_CHUNK);
    expect(await states(client.sendStreamingMessage(message))).toEqual(['TASK_STATE_COMPLETED']);
    expect(bodies).toHaveLength(1);
  });

  it('a stream reader that cannot load fails the stream with a retryable A2ATransportError, and the next stream loads it', async () => {
    vi.resetModules();
    vi.doMock(READER_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const bodies: string[] = [];
    const client = createA2AClient({
      card: cardFor('http://agent.test'),
      fetch: streamingFetch(bodies),
      retry: { retries: 0 },
      resume: { maxAttempts: 0 },
    });
    const error = await firstError(client.sendStreamingMessage(message));
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);

    vi.doUnmock(READER_CHUNK);
    expect(await states(client.sendStreamingMessage(message))).toEqual(['TASK_STATE_COMPLETED']);
  });
});

describe('the error response converters loaded on demand', () => {
  const CONVERT_CHUNK = '../src/error-conversion.js';

  afterEach(() => {
    vi.doUnmock(CONVERT_CHUNK);
  });

  it('an error response whose converters cannot load fails the call with a retryable A2ATransportError; the next one is typed', async () => {
    vi.resetModules();
    vi.doMock(CONVERT_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const { TaskNotFoundError } = await import('@a2aplane/a2a-types');
    const fetch: FetchLike = async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      const { id } = JSON.parse(text) as { id: unknown };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32001, message: 'no such task' } }), {
        headers: { 'Content-Type': 'application/json' },
      });
    };
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch, retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);

    vi.doUnmock(CONVERT_CHUNK);
    const typed = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(typed).toBeInstanceOf(TaskNotFoundError);
    expect(TaskNotFoundError.isInstance(typed) && typed.message).toBe('no such task');
  });
});

describe('invalid results: InvalidAgentResponseError loaded on demand with the error classes', () => {
  const CLASSES_CHUNK = '../src/error-conversion.js';
  const message = { message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };

  afterEach(() => {
    vi.doUnmock(CLASSES_CHUNK);
  });

  // Every request gets `result` as its result, unary or as one stream event.
  function answering(result: unknown, bodies: string[] = []): FetchLike {
    return async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      bodies.push(text);
      const { id, method } = JSON.parse(text) as { id: unknown; method: string };
      const frame = JSON.stringify({ jsonrpc: '2.0', id, result });
      if (method === 'SendStreamingMessage') {
        return new Response(`id: 1\ndata: ${frame}\n\n`, { headers: { 'Content-Type': 'text/event-stream' } });
      }
      return new Response(frame, { headers: { 'Content-Type': 'application/json' } });
    };
  }

  async function firstError(stream: AsyncIterable<unknown>): Promise<unknown> {
    try {
      for await (const _event of stream);
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it('a unary call with an invalid result rejects with the root InvalidAgentResponseError, which says what was wrong', async () => {
    vi.resetModules();
    const { createA2AClient } = await import('../src/index.js');
    const { InvalidAgentResponseError } = await import('@a2aplane/a2a-types');
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: answering({ id: 't-1' }), retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toBe('Invalid GetTask result: status: expected an object');
  });

  it('an invalid stream event ends the stream with InvalidAgentResponseError, without a resume', async () => {
    vi.resetModules();
    const { createA2AClient } = await import('../src/index.js');
    const { InvalidAgentResponseError } = await import('@a2aplane/a2a-types');
    const bodies: string[] = [];
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: answering({ task: { id: 't-1' } }, bodies) });
    const error = await firstError(client.sendStreamingMessage(message));
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toBe('Invalid SendStreamingMessage result: task.status: expected an object');
    expect(bodies).toHaveLength(1);
  });

  it('if the classes cannot load: a transport error that is not retryable (unary and stream); the next invalid result is typed', async () => {
    vi.resetModules();
    vi.doMock(CLASSES_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const { InvalidAgentResponseError } = await import('@a2aplane/a2a-types');
    const bodies: string[] = [];
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: answering({ task: { id: 't-1' } }, bodies) });
    const unary = await client.sendMessage(message).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(unary)).toBe(true);
    expect(A2ATransportError.isInstance(unary) && unary.retryable).toBe(false);
    expect(causedBy(unary, loadFailure)).toBe(true);
    // The default retry policy did not send it again.
    expect(bodies).toHaveLength(1);
    const streamed = await firstError(client.sendStreamingMessage(message));
    expect(A2ATransportError.isInstance(streamed) && !streamed.retryable).toBe(true);
    expect(causedBy(streamed, loadFailure)).toBe(true);
    expect(bodies).toHaveLength(2);

    vi.doUnmock(CLASSES_CHUNK);
    const typed = await client.sendMessage(message).catch((e: unknown) => e);
    expect(typed).toBeInstanceOf(InvalidAgentResponseError);
  });
});

describe('auth and interceptors loaded on demand', () => {
  const HOOKS_CHUNK = '../src/hooks.js';

  afterEach(() => {
    vi.doUnmock(HOOKS_CHUNK);
  });

  function taskFetch(requests: { url: string; authorization: string | null; traced: string | null }[]): FetchLike {
    return async (input, init) => {
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      requests.push({
        url: String(input instanceof Request ? input.url : input),
        authorization: headers.get('authorization'),
        traced: headers.get('x-traced'),
      });
      const { id } = JSON.parse(text) as { id: unknown };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, result: task('t-1', 'TASK_STATE_COMPLETED') }), {
        headers: { 'Content-Type': 'application/json' },
      });
    };
  }

  it('a client with auth and interceptors runs them from the chunk: auth header, beforeCall headers, afterCall outcome', async () => {
    vi.resetModules();
    const { createA2AClient, bearerAuth } = await import('../src/index.js');
    const requests: { url: string; authorization: string | null; traced: string | null }[] = [];
    const outcomes: boolean[] = [];
    const client = createA2AClient({
      card: cardFor('http://agent.test'),
      fetch: taskFetch(requests),
      auth: bearerAuth({ getToken: () => 'secret' }),
      interceptors: {
        beforeCall: (call) => {
          call.headers['x-traced'] = 'yes';
        },
        afterCall: (outcome) => {
          outcomes.push(outcome.ok);
        },
      },
    });
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(requests.map((r) => [r.authorization, r.traced])).toEqual([['Bearer secret', 'yes']]);
    expect(outcomes).toEqual([true]);
  });

  it('if the chunk cannot load: a retryable A2ATransportError, nothing sent; the next call loads it', async () => {
    vi.resetModules();
    vi.doMock(HOOKS_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, bearerAuth, A2ATransportError } = await import('../src/index.js');
    const requests: { url: string; authorization: string | null; traced: string | null }[] = [];
    const client = createA2AClient({
      card: cardFor('http://agent.test'),
      fetch: taskFetch(requests),
      auth: bearerAuth({ getToken: () => 'secret' }),
      retry: { retries: 0 },
    });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(requests).toEqual([]);

    vi.doUnmock(HOOKS_CHUNK);
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(requests.map((r) => r.authorization)).toEqual(['Bearer secret']);
  });
});
