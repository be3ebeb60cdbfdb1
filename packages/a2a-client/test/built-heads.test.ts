import { afterEach, describe, expect, it, vi } from 'vitest';

// Counts the requests ky builds; everything else about ky is the real thing.
const kyCalls = vi.hoisted(() => ({ count: 0 }));
vi.mock('ky', async (importOriginal) => {
  const actual = (await importOriginal()) as { default: (...args: unknown[]) => unknown };
  return {
    default: (...args: unknown[]) => {
      kyCalls.count++;
      return actual.default(...args);
    },
  };
});

const { createA2AClient } = await import('../src/index.js');
const { cardFor, json, rpcResult, startServer, task } = await import('./helpers/server.js');
type TestServer = Awaited<ReturnType<typeof startServer>>;

const servers: TestServer[] = [];
afterEach(async () => {
  kyCalls.count = 0;
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function echoServer(): Promise<TestServer> {
  const server = await startServer((req, res) => {
    if (req.url.startsWith('/a2a/jsonrpc')) return json(res, 200, rpcResult(req.body, task('t-1')));
    // REST: GET /tasks/{id}
    const id = decodeURIComponent(req.url.split('/').pop() ?? '');
    return json(res, 200, task(id));
  });
  servers.push(server);
  return server;
}

describe('request heads ky built are reused', () => {
  it('ky builds a JSON-RPC head once; later calls with the same headers send it as built', async () => {
    const server = await echoServer();
    const client = createA2AClient({ card: cardFor(server.url), headers: { 'X-Team': 'blue' } });
    for (let i = 0; i < 3; i++) await client.getTask({ id: 't-1' });
    expect(kyCalls.count).toBe(1);
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/a2a/jsonrpc');
      expect(request.headers['x-team']).toBe('blue');
      expect(request.headers['a2a-version']).toBe('1.0');
      expect(request.headers['content-type']).toBe('application/json');
    }
    // Each call still has its own body (its own JSON-RPC id).
    expect(new Set(server.requests.map((r) => (JSON.parse(r.body) as { id: string }).id)).size).toBe(3);
  });

  it("a call's own headers get their own head, and the next plain call has none of them", async () => {
    const server = await echoServer();
    const client = createA2AClient({ card: cardFor(server.url) });
    await client.getTask({ id: 't-1' }, { headers: { 'X-Call': 'one' } });
    await client.getTask({ id: 't-1' }, { headers: { 'X-Call': 'two' } });
    await client.getTask({ id: 't-1' });
    await client.getTask({ id: 't-1' });
    expect(server.requests.map((r) => r.headers['x-call'])).toEqual(['one', 'two', undefined, undefined]);
    // Two heads with call headers, one shared by the two plain calls.
    expect(kyCalls.count).toBe(3);
  });

  it('a REST call to another URL is built by ky again and goes to that URL', async () => {
    const server = await echoServer();
    const client = createA2AClient({
      card: cardFor(server.url, [{ url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]),
    });
    const first = await client.getTask({ id: 't-1' });
    const second = await client.getTask({ id: 't-2' });
    const again = await client.getTask({ id: 't-2' });
    expect([first.id, second.id, again.id]).toEqual(['t-1', 't-2', 't-2']);
    expect(server.requests.map((r) => r.url)).toEqual(['/rest/tasks/t-1', '/rest/tasks/t-2', '/rest/tasks/t-2']);
    // The same URL twice in a row reuses its head.
    expect(kyCalls.count).toBe(2);
  });

  it('each kind of REST call sends its own fixed headers: a content type only with a body, and they never mix', async () => {
    const server = await startServer((req, res) => {
      if (req.url.endsWith('/message:send')) {
        // A v1.0.1 server's media type is read like application/json.
        res.writeHead(200, { 'content-type': 'application/a2a+json' }).end(JSON.stringify({ task: task('t-9') }));
        return;
      }
      return json(res, 200, task(decodeURIComponent(req.url.split('/').pop() ?? '')));
    });
    servers.push(server);
    const client = createA2AClient({
      card: cardFor(server.url, [{ url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]),
    });
    const message = { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] };
    await client.getTask({ id: 't-1' });
    expect((await client.sendMessage({ message })).task?.id).toBe('t-9');
    await client.getTask({ id: 't-1' });
    await client.sendMessage({ message: { ...message, messageId: 'm-2' } });
    const either = 'application/a2a+json, application/json';
    expect(server.requests.map((r) => [r.method, r.headers['content-type'], r.headers.accept])).toEqual([
      ['GET', undefined, either],
      ['POST', 'application/json', either],
      ['GET', undefined, either],
      ['POST', 'application/json', either],
    ]);
  });

  it('with an auth provider every request is built by ky (the provider may change any header)', async () => {
    const server = await echoServer();
    let n = 0;
    const client = createA2AClient({
      card: cardFor(server.url),
      auth: {
        apply(request) {
          request.headers.set('authorization', `Bearer token-${++n}`);
        },
      },
    });
    await client.getTask({ id: 't-1' });
    await client.getTask({ id: 't-1' });
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
    expect(kyCalls.count).toBe(2);
  });
});
