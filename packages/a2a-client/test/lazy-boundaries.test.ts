// The client's lazy boundary for streams (streaming.ts, decision 0090), and the paths that are part of
// the initial code: the HTTP+JSON transport, the error classes, auth and interceptors.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../src/index.js';
import { cardFor, task } from './helpers/server.js';
import { causedBy, loadFailure } from './helpers/chunks.js';

const restCard = cardFor('http://agent.test', [{ url: 'http://agent.test/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);

function recordingFetch(urls: string[]): FetchLike {
  return async (input, init) => {
    urls.push(input instanceof Request ? `${input.method} ${input.url}` : `${init?.method} ${String(input)}`);
    return new Response(JSON.stringify(task('t-1', 'TASK_STATE_COMPLETED')), { headers: { 'Content-Type': 'application/json' } });
  };
}

describe('the HTTP+JSON transport', () => {
  it('a REST call sends the route of the operation', async () => {
    vi.resetModules();
    const { createA2AClient } = await import('../src/index.js');
    const urls: string[] = [];
    const client = createA2AClient({ card: restCard, fetch: recordingFetch(urls), retry: { retries: 0 } });
    const result = await client.getTask({ id: 't-1', historyLength: 2 });
    expect(result.id).toBe('t-1');
    expect(urls).toEqual(['GET http://agent.test/rest/tasks/t-1?historyLength=2']);
  });
});

describe('the streaming code loaded on demand', () => {
  const LOOP_CHUNK = '../src/streaming.js';
  const message = { message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };

  afterEach(() => {
    vi.doUnmock(LOOP_CHUNK);
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

  it('streaming code that cannot load fails the stream with a retryable A2ATransportError, sends nothing, and the next stream loads it', async () => {
    vi.resetModules();
    vi.doMock(LOOP_CHUNK, () => {
      throw loadFailure;
    });
    const { createA2AClient, A2ATransportError } = await import('../src/index.js');
    const bodies: string[] = [];
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: streamingFetch(bodies), retry: { retries: 0 } });
    const error = await firstError(client.sendStreamingMessage(message));
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect((error as Error).message).toBe('Could not load the streaming code');
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(bodies).toEqual([]);

    vi.doUnmock(LOOP_CHUNK);
    expect(await states(client.sendStreamingMessage(message))).toEqual(['TASK_STATE_COMPLETED']);
    expect(bodies).toHaveLength(1);
  });
});

describe('invalid results: the root InvalidAgentResponseError', () => {
  const message = { message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } };

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
});

describe('auth and interceptors', () => {
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

  it('a client with auth and interceptors runs them: auth header, beforeCall headers, afterCall outcome', async () => {
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
});
