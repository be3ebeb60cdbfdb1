import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FetchLike } from '../src/index.js';
import { cardFor, task } from './helpers/server.js';

// The REST route table and request builder are a chunk the REST transport loads on demand
// (decision 0044). These tests load a fresh copy of the package with that chunk failing, as a
// browser does when the download fails.
const CHUNK = '../src/transports/rest-request.js';
const loadFailure = new Error('Failed to fetch dynamically imported module');

afterEach(() => {
  vi.doUnmock(CHUNK);
  vi.resetModules();
});

// Vitest wraps what a mock factory throws; the original stays in the chain of causes.
function causedBy(error: unknown, cause: Error): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (e === cause) return true;
  return false;
}

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

describe('the REST request builder loaded on demand', () => {
  it('a REST call loads it and sends the route of the operation', async () => {
    const { createA2AClient } = await freshPackage(false);
    const urls: string[] = [];
    const client = createA2AClient({ card: restCard, fetch: recordingFetch(urls), retry: { retries: 0 } });
    const result = await client.getTask({ id: 't-1', historyLength: 2 });
    expect(result.id).toBe('t-1');
    expect(urls).toEqual(['GET http://agent.test/rest/tasks/t-1?historyLength=2']);
  });

  it('a builder that cannot load fails the call with a retryable A2ATransportError, sends nothing, and the next call loads it', async () => {
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
