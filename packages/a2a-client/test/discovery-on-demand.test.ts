import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../src/index.js';
import { cardFor, task } from './helpers/server.js';
import { causedBy, loadFailure } from './helpers/chunks.js';

// Discovery with card verification is one of the client's lazy boundaries, loaded by the first
// `resolve` (decision 0090). These tests load a fresh copy of the package with that module failing, as
// a browser does when the download fails, or with its load recorded.
const CHUNK = '../src/card-resolution.js';
const AGENT = 'http://agent.test';

afterEach(() => {
  vi.doUnmock(CHUNK);
  vi.resetModules();
});

async function freshPackage(chunk: 'failing' | 'recorded', loads: string[] = []): Promise<typeof import('../src/index.js')> {
  vi.resetModules();
  vi.doMock(CHUNK, async (importOriginal) => {
    loads.push(CHUNK);
    if (chunk === 'failing') throw loadFailure;
    return importOriginal();
  });
  return import('../src/index.js');
}

/** An agent's card at the well-known path of any origin, and a completed task for every JSON-RPC call; records each request. */
function agentFetch(requests: string[]): FetchLike {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    requests.push(`${input instanceof Request ? input.method : (init?.method ?? 'GET')} ${url}`);
    const headers = { 'Content-Type': 'application/json' };
    if (url.endsWith('/.well-known/agent-card.json')) return new Response(JSON.stringify(cardFor(new URL(url).origin)), { headers });
    const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
    const { id } = JSON.parse(text) as { id: unknown };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id, result: task('t-1', 'TASK_STATE_COMPLETED') }), { headers });
  };
}

describe('card discovery loaded on demand', () => {
  it('a client built from baseUrl loads it with its first call, discovers the card and calls the agent', async () => {
    const loads: string[] = [];
    const { createA2AClient } = await freshPackage('recorded', loads);
    const requests: string[] = [];
    const client = createA2AClient({ baseUrl: AGENT, fetch: agentFetch(requests) });
    expect(loads).toEqual([]);
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(loads).toEqual([CHUNK]);
    expect(requests).toEqual([`GET ${AGENT}/.well-known/agent-card.json`, `POST ${AGENT}/a2a/jsonrpc`]);
  });

  it('a client built with its card never loads it', async () => {
    const loads: string[] = [];
    const { createA2AClient } = await freshPackage('recorded', loads);
    const requests: string[] = [];
    const client = createA2AClient({ card: cardFor(AGENT), fetch: agentFetch(requests) });
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect((await client.getCard()).name).toBe('Test agent');
    expect(loads).toEqual([]);
    expect(requests).toEqual([`POST ${AGENT}/a2a/jsonrpc`]);
  });

  it('if it cannot load: the call fails with a retryable A2ATransportError, nothing is sent, and the next call loads it', async () => {
    const { createA2AClient, A2ATransportError } = await freshPackage('failing');
    const requests: string[] = [];
    const client = createA2AClient({ baseUrl: AGENT, fetch: agentFetch(requests), retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect((error as Error).message).toBe('Could not load the discovery code');
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(requests).toEqual([]);

    vi.doUnmock(CHUNK);
    expect((await client.getTask({ id: 't-1' })).id).toBe('t-1');
    expect(requests).toEqual([`GET ${AGENT}/.well-known/agent-card.json`, `POST ${AGENT}/a2a/jsonrpc`]);
  });

  it('a CardResolver whose chunk cannot load fails its resolve the same way, and its next resolve loads it', async () => {
    const { CardResolver, A2ATransportError } = await freshPackage('failing');
    const requests: string[] = [];
    const resolver = new CardResolver({ fetch: agentFetch(requests) });
    const error = await resolver.resolve(AGENT).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(requests).toEqual([]);

    vi.doUnmock(CHUNK);
    expect((await resolver.resolve(AGENT)).card.name).toBe('Test agent');
    expect(requests).toEqual([`GET ${AGENT}/.well-known/agent-card.json`]);
  });

  it('the options are still checked when the client or resolver is made', async () => {
    const { createA2AClient, CardResolver } = await freshPackage('recorded');
    const bad = { trustedKeys: 'key' } as unknown as ConstructorParameters<typeof CardResolver>[0];
    expect(() => createA2AClient({ baseUrl: AGENT, ...bad })).toThrow(/expected trustedKeys to be an array/);
    expect(() => createA2AClient({ baseUrl: AGENT, jkuPrefixes: [1] as unknown as string[] })).toThrow(
      /expected jkuPrefixes to be an array of strings/,
    );
    expect(() => new CardResolver(null as unknown as undefined)).toThrow(TypeError);
  });
});

describe('CardResolver with its work on demand', () => {
  it('concurrent first resolves share one cache', async () => {
    const { CardResolver } = await freshPackage('recorded');
    const requests: string[] = [];
    const resolver = new CardResolver({ fetch: agentFetch(requests) });
    const other = 'http://other-agent.test';
    const [first] = await Promise.all([resolver.resolve(AGENT), resolver.resolve(other)]);
    expect(requests).toHaveLength(2);
    // Both cards were cached in the one cache the resolver keeps.
    expect(await resolver.resolve(AGENT)).toBe(first);
    expect((await resolver.resolve(other)).card.supportedInterfaces[0]?.url).toBe(`${other}/a2a/jsonrpc`);
    expect(requests).toHaveLength(2);
  });

  it('clear before the first resolve is a no-op; after it, it drops the cached card', async () => {
    const { CardResolver } = await freshPackage('recorded');
    const requests: string[] = [];
    const resolver = new CardResolver({ fetch: agentFetch(requests) });
    resolver.clear();
    resolver.clear(AGENT);
    const first = await resolver.resolve(AGENT);
    expect(await resolver.resolve(AGENT)).toBe(first);
    expect(requests).toHaveLength(1);
    resolver.clear(AGENT);
    expect(await resolver.resolve(AGENT)).not.toBe(first);
    expect(requests).toHaveLength(2);
  });
});
