import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { probeGlobalFetch } from '../src/fetch-follow.js';
import { FollowerSignal } from '../src/fetch-signal.js';
import {
  A2AAbortError,
  A2ATimeoutError,
  bearerAuth,
  createA2AClient,
  type TransportCallOptions,
  type TransportFactory,
} from '../src/index.js';
import { cardFor, json, rpcResult, startServer, type TestServer, userMessage } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server that never answers the JSON-RPC call; `closed` resolves when the client drops the request. */
async function hangingServer(): Promise<{ server: TestServer; closed: Promise<boolean> }> {
  let onClose: (aborted: boolean) => void = () => undefined;
  const closed = new Promise<boolean>((resolve) => {
    onClose = resolve;
  });
  const server = await startServer((_req, res: ServerResponse) => {
    res.on('close', () => onClose(!res.writableFinished));
  });
  servers.push(server);
  return { server, closed };
}

describe('FollowerSignal', () => {
  it('calls each abort listener once, with the signal as `this` and the reason set; removed ones are not called', () => {
    const signal = new FollowerSignal();
    const seen: unknown[] = [];
    function first(this: FollowerSignal): void {
      seen.push(['first', this === signal, this.aborted, this.reason]);
    }
    const removed = (): void => {
      seen.push('removed');
    };
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.fire('why');
    signal.fire('again');
    expect(seen).toEqual([['first', true, true, 'why']]);
  });

  it('Node’s Request follows it: firing aborts the request with the same reason', () => {
    const signal = new FollowerSignal();
    const request = new Request('http://127.0.0.1/', { signal: signal as unknown as AbortSignal });
    const reason = new Error('stop');
    signal.fire(reason);
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toBe(reason);
  });
});

describe('the probe of the global fetch', () => {
  it("approves Node's own fetch (so the tests below take the FollowerSignal path)", async () => {
    expect(await probeGlobalFetch()).toBe(true);
  });

  it('refuses a fetch that ignores the signal, and one that refuses it', async () => {
    vi.resetModules();
    vi.stubGlobal('fetch', async () => new Response('ignored'));
    const ignoring = (await import('../src/fetch-follow.js')) as typeof import('../src/fetch-follow.js');
    expect(await ignoring.probeGlobalFetch()).toBe(false);
    expect(ignoring.globalFetchFollows()).toBe(false);

    vi.resetModules();
    vi.stubGlobal('fetch', (_input: unknown, init?: RequestInit) => {
      if (init?.signal && !(init.signal instanceof AbortSignal)) throw new TypeError('not an AbortSignal');
      return Promise.resolve(new Response('ok'));
    });
    const refusing = (await import('../src/fetch-follow.js')) as typeof import('../src/fetch-follow.js');
    expect(await refusing.probeGlobalFetch()).toBe(false);
  });
});

describe('before and outside the probe', () => {
  it('outside Node (no process.release.name "node") the probe answers no without calling fetch', async () => {
    vi.resetModules();
    const fetched = vi.fn(globalThis.fetch);
    vi.stubGlobal('fetch', fetched);
    const release = process.release;
    Object.defineProperty(process, 'release', { value: { ...release, name: 'browser' }, configurable: true });
    try {
      const fresh = (await import('../src/fetch-follow.js')) as typeof import('../src/fetch-follow.js');
      expect(await fresh.probeGlobalFetch()).toBe(false);
      expect(fetched).not.toHaveBeenCalled();
    } finally {
      Object.defineProperty(process, 'release', { value: release, configurable: true });
    }
  });

  it('a call made before the probe has answered gets a real AbortSignal; calls after it, the FollowerSignal', async () => {
    vi.resetModules();
    const native = globalThis.fetch;
    const signals: unknown[] = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input) !== 'data:,') signals.push(init?.signal);
      return native(input, init);
    });
    const fresh = (await import('../src/index.js')) as typeof import('../src/index.js');
    const follow = (await import('../src/fetch-follow.js')) as typeof import('../src/fetch-follow.js');
    const reply = { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, { message: reply })));
    servers.push(server);
    const client = fresh.createA2AClient({ card: cardFor(server.url) });
    expect((await client.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(await follow.probeGlobalFetch()).toBe(true);
    expect((await client.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(signals).toHaveLength(2);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    expect(signals[1]).not.toBeInstanceOf(AbortSignal);
    expect((signals[1] as { aborted?: unknown }).aborted).toBe(false);
  });
});

describe('unary calls through the global fetch with a FollowerSignal', () => {
  it("the client's timeout still fires and aborts the fetch before the response head", async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const addListener = vi.spyOn(FollowerSignal.prototype, 'addEventListener');
    const { server, closed } = await hangingServer();
    const client = createA2AClient({ card: cardFor(server.url), timeoutMs: 100, retry: { retries: 0 } });
    const error = await client.sendMessage(userMessage()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    expect((error as A2ATimeoutError).timeoutMs).toBe(100);
    // The server saw the request dropped before it answered: the fetch was aborted, not left running.
    expect(await closed).toBe(true);
    // undici listened on the follower, not on an AbortSignal.
    expect(addListener).toHaveBeenCalledWith('abort', expect.any(Function), expect.anything());
  });

  it('over HTTP+JSON too: the timeout aborts the fetch, through the FollowerSignal', async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const addListener = vi.spyOn(FollowerSignal.prototype, 'addEventListener');
    const { server, closed } = await hangingServer();
    const card = cardFor(server.url, [{ url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    const client = createA2AClient({ card, timeoutMs: 100, retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    expect(await closed).toBe(true);
    expect(addListener).toHaveBeenCalledWith('abort', expect.any(Function), expect.anything());
  });

  it("the caller's abort still aborts the fetch, as an A2AAbortError", async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const { server, closed } = await hangingServer();
    const client = createA2AClient({ card: cardFor(server.url), retry: { retries: 0 } });
    const controller = new AbortController();
    const pending = client.sendMessage(userMessage(), { signal: controller.signal }).catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('caller stopped'));
    const error = await pending;
    expect(error).toBeInstanceOf(A2AAbortError);
    expect(await closed).toBe(true);
  });

  it("waiting in line for an origin slot: the timeout and the caller's abort end the wait (the FollowerSignal as the wait's signal)", async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const { server, closed } = await hangingServer();
    const client = createA2AClient({ card: cardFor(server.url), maxConcurrentPerOrigin: 1, retry: { retries: 0 } });
    const holder = new AbortController();
    const first = client.sendMessage(userMessage(), { signal: holder.signal, timeoutMs: 5_000 }).catch((e: unknown) => e);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    const timedOut = await client.sendMessage(userMessage(), { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(A2ATimeoutError);
    expect((timedOut as A2ATimeoutError).timeoutMs).toBe(100);

    const waiter = new AbortController();
    const aborted = client.sendMessage(userMessage(), { signal: waiter.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    waiter.abort(new Error('caller stopped'));
    expect(await aborted).toBeInstanceOf(A2AAbortError);
    // Neither waiting call reached the server.
    expect(server.requests).toHaveLength(1);

    holder.abort(new Error('done'));
    expect(await first).toBeInstanceOf(A2AAbortError);
    expect(await closed).toBe(true);
  });

  it('a call answered in time succeeds, and a fetch installed after the probe gets a real AbortSignal', async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const reply = { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, { message: reply })));
    servers.push(server);
    const client = createA2AClient({ card: cardFor(server.url) });
    expect((await client.sendMessage(userMessage())).message?.messageId).toBe('r-1');

    const native = globalThis.fetch;
    const signals: unknown[] = [];
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      signals.push(init?.signal);
      return native(input, init);
    });
    expect((await client.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });

  it('the `fetch` option gets a real AbortSignal', async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const reply = { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, { message: reply })));
    servers.push(server);
    const signals: unknown[] = [];
    const client = createA2AClient({
      card: cardFor(server.url),
      fetch: (input, init) => {
        signals.push(init?.signal);
        return globalThis.fetch(input, init);
      },
    });
    expect((await client.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
  });

  it('a client with auth sends with a real signal (hooks.ts sees the request); one without, through the FollowerSignal', async () => {
    expect(await probeGlobalFetch()).toBe(true);
    const reply = { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, { message: reply })));
    servers.push(server);
    const followed = vi.spyOn(FollowerSignal.prototype, 'addEventListener');
    const withAuth = createA2AClient({ card: cardFor(server.url), auth: bearerAuth({ getToken: () => 't' }) });
    expect((await withAuth.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer t');
    expect(followed).not.toHaveBeenCalled();
    const plain = createA2AClient({ card: cardFor(server.url) });
    expect((await plain.sendMessage(userMessage())).message?.messageId).toBe('r-1');
    expect(followed).toHaveBeenCalled();
  });

  it('a registry transport still gets a real AbortSignal that the timeout aborts (made on demand)', async () => {
    let seen: AbortSignal | undefined;
    const factory: TransportFactory = (i) => ({
      binding: i.protocolBinding,
      url: i.url,
      call: (_method, _params, options: TransportCallOptions) =>
        new Promise((_, reject) => {
          seen = options.signal;
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true });
        }),
      open: () => Promise.reject(new Error('no streams')),
    });
    const card = cardFor('http://a.test', [{ url: 'http://a.test/custom', protocolBinding: 'CUSTOM', protocolVersion: '1.0' }]);
    const client = createA2AClient({ card, transports: { CUSTOM: factory }, timeoutMs: 50, retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    expect(seen).toBeInstanceOf(AbortSignal);
    expect(seen?.aborted).toBe(true);
  });
});
