import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { A2AAbortError, A2ATimeoutError, createA2AClient, type TransportCallOptions, type TransportFactory } from '../src/index.js';
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

/**
 * The fetch was aborted, not left running: the server saw the request dropped before it answered or, when the
 * deadline passed before the request reached the server at all (a loaded machine), it never saw it.
 */
async function expectDropped(server: TestServer, closed: Promise<boolean>): Promise<void> {
  if (server.requests.length > 0) expect(await closed).toBe(true);
}

/** Records the `signal` of every request the global fetch is given, and sends it on. */
function recordSignals(): AbortSignal[] {
  const native = globalThis.fetch;
  const signals: AbortSignal[] = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.signal) signals.push(init.signal);
    return native(input, init);
  });
  return signals;
}

// Every deadline hands fetch a real AbortSignal (decision 0090): the platform's own abort path, the
// one fetch is tested with, rather than an object shaped like a signal.
describe('unary calls under their deadline through the global fetch', () => {
  it("the client's timeout still fires and aborts the fetch before the response head", async () => {
    const signals = recordSignals();
    const { server, closed } = await hangingServer();
    const client = createA2AClient({ card: cardFor(server.url), timeoutMs: 100, retry: { retries: 0 } });
    const error = await client.sendMessage(userMessage()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    expect((error as A2ATimeoutError).timeoutMs).toBe(100);
    await expectDropped(server, closed);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('over HTTP+JSON too: the timeout aborts the fetch', async () => {
    const signals = recordSignals();
    const { server, closed } = await hangingServer();
    const card = cardFor(server.url, [{ url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    const client = createA2AClient({ card, timeoutMs: 100, retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    await expectDropped(server, closed);
    expect(signals[0]?.aborted).toBe(true);
  });

  it("the caller's abort still aborts the fetch, as an A2AAbortError", async () => {
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

  it("waiting in line for an origin slot: the timeout and the caller's abort end the wait", async () => {
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

  it('the `fetch` option gets a real AbortSignal', async () => {
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

  it('under load, every timed-out call ends and its fetch is aborted: 32 at once while the event loop is kept busy', async () => {
    const signals = recordSignals();
    let open = 0;
    let dropped = 0;
    const server = await startServer((_req, res: ServerResponse) => {
      open++;
      res.on('close', () => {
        if (!res.writableFinished) dropped++;
      });
    });
    servers.push(server);
    const client = createA2AClient({ card: cardFor(server.url), timeoutMs: 50, retry: { retries: 0 }, circuitBreaker: false });
    // Busy turns of the event loop, as on a machine running every suite at once: timers fire late, never not at all.
    let busy = true;
    const spin = (): void => {
      const until = Date.now() + 20;
      while (Date.now() < until) {
        // Busy on purpose.
      }
      if (busy) setImmediate(spin);
    };
    setImmediate(spin);
    const errors = await Promise.all(Array.from({ length: 32 }, () => client.sendMessage(userMessage()).catch((e: unknown) => e)));
    busy = false;
    expect(errors.every((error) => error instanceof A2ATimeoutError)).toBe(true);
    expect(signals).toHaveLength(32);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    while (dropped < open) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(dropped).toBe(open);
  });
});
