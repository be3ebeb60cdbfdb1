import type { ServerResponse } from 'node:http';
import { TaskNotFoundError } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  CircuitOpenError,
  createA2AClient,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type FetchLike,
  type StreamItem,
  type TransportCallOptions,
  type TransportFactory,
} from '../src/index.js';
import { cardFor, json, rpcResult, startServer, type TestServer, task } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });
const untilAborted = (signal: AbortSignal | undefined): Promise<never> =>
  new Promise((_, reject) => {
    if (signal?.aborted) reject(abortError());
    signal?.addEventListener('abort', () => reject(abortError()), { once: true });
  });

/** A transport for the card's `CUSTOM` interfaces whose `call` / `open` the test scripts. */
function custom(
  call: (options: TransportCallOptions, url: string) => Promise<unknown>,
  open?: (options: TransportCallOptions) => Promise<AsyncIterable<StreamItem>>,
): TransportFactory {
  return (i) => ({
    binding: i.protocolBinding,
    url: i.url,
    call: (_method, _params, options) => call(options, i.url),
    open: (_method, _params, options) => (open ? open(options) : Promise.reject(new Error('no stream'))),
  });
}

const card = (...urls: string[]) =>
  cardFor(
    'http://unused.test',
    urls.map((url) => ({ url, protocolBinding: 'CUSTOM', protocolVersion: '1.0' })),
  );

describe('default timeouts', () => {
  it('a unary call times out after 10 s by default', async () => {
    vi.useFakeTimers();
    expect(DEFAULT_TIMEOUT_MS).toBe(10_000);
    const client = createA2AClient({
      card: card('http://a.test'),
      transports: { CUSTOM: custom((o) => untilAborted(o.signal)) },
      retry: { retries: 0 },
    });
    let settled: unknown;
    const pending = client.getTask({ id: 't' }).catch((e: unknown) => {
      settled = e;
    });
    await vi.advanceTimersByTimeAsync(9_999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(A2ATimeoutError.isInstance(settled)).toBe(true);
    expect((settled as A2ATimeoutError).timeoutMs).toBe(10_000);
  });

  it('timeoutMs: false disables the timer (the transport gets the caller signal, here none)', async () => {
    const seen: Array<AbortSignal | undefined> = [];
    const factory = custom(async (o) => {
      seen.push(o.signal);
      return task('t-1');
    });
    const off = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: factory }, timeoutMs: false });
    await off.getTask({ id: 't-1' });
    expect(seen[0]).toBeUndefined();
    const on = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: factory } });
    await on.getTask({ id: 't-1' }, { timeoutMs: false });
    expect(seen[1]).toBeUndefined();
  });

  it('refuses a timeout that is not a positive number or false', () => {
    expect(() => createA2AClient({ card: card('http://a.test'), timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createA2AClient({ card: card('http://a.test'), streamIdleTimeoutMs: -1 })).toThrow(RangeError);
  });

  it('a stream that goes silent fails with A2ATimeoutError after streamIdleTimeoutMs; a lively one does not', async () => {
    expect(DEFAULT_STREAM_IDLE_TIMEOUT_MS).toBe(60_000);
    const working = { task: task('t-5') };
    const done = { statusUpdate: { taskId: 't-5', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } };
    // One event every 20 ms, five times, then the final one: never silent for 60 ms.
    const lively = custom(
      () => Promise.reject(new Error('unused')),
      async () =>
        (async function* () {
          for (let i = 0; i < 5; i++) {
            yield { data: working, id: undefined };
            await new Promise((r) => setTimeout(r, 20));
          }
          yield { data: done, id: undefined };
        })(),
    );
    const ok = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: lively }, streamIdleTimeoutMs: 60 });
    let count = 0;
    for await (const _ of ok.subscribeToTask({ id: 't-5' })) count++;
    expect(count).toBe(6);

    let aborted = false;
    const silent = custom(
      () => Promise.reject(new Error('unused')),
      async (o) =>
        (async function* () {
          yield { data: working, id: undefined };
          await untilAborted(o.signal).catch((e: unknown) => {
            aborted = true;
            throw e;
          });
        })(),
    );
    const stalls = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: silent }, streamIdleTimeoutMs: 50 });
    const error = await (async () => {
      for await (const _ of stalls.subscribeToTask({ id: 't-5' })) {
        // first event arrives, then nothing
      }
    })().catch((e: unknown) => e);
    expect(A2ATimeoutError.isInstance(error)).toBe(true);
    expect((error as A2ATimeoutError).timeoutMs).toBe(50);
    expect(aborted).toBe(true);
  });

  it('an SSE stream over HTTP that stalls after its first event times out on idle', async () => {
    const server = await startServer((req, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const { id } = JSON.parse(req.body) as { id: string };
      res.write(`id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-6') } })}\n\n`);
    });
    servers.push(server);
    const client = createA2AClient({ card: cardFor(server.url), streamIdleTimeoutMs: 80, resume: { maxAttempts: 0 } });
    const error = await (async () => {
      for await (const _ of client.subscribeToTask({ id: 't-6' })) {
        // one event, then silence
      }
    })().catch((e: unknown) => e);
    expect(A2ATimeoutError.isInstance(error)).toBe(true);
  });
});

describe('stream idle timeout and heartbeats', () => {
  it('SSE comments (heartbeats) count as activity: a quiet task with heartbeats does not time out', async () => {
    const server = await startServer((req, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const { id } = JSON.parse(req.body) as { id: string };
      const frame = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
      res.write(frame({ task: task('t-8') }));
      const beat = setInterval(() => res.write(': heartbeat\n\n'), 25);
      // Three idle timeouts of a quiet task: without the heartbeats counted, the stream would time out.
      setTimeout(() => {
        clearInterval(beat);
        res.end(frame({ statusUpdate: { taskId: 't-8', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
      }, 1_500);
    });
    servers.push(server);
    // 20 heartbeats per idle timeout: a loaded CI machine that stalls the event loop for a while still sees one in time.
    const client = createA2AClient({ card: cardFor(server.url), streamIdleTimeoutMs: 500 });
    const states: string[] = [];
    for await (const event of client.subscribeToTask({ id: 't-8' }))
      states.push(event.task?.status.state ?? event.statusUpdate?.status.state ?? '?');
    expect(states).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });
});

describe('per-origin concurrency cap', () => {
  it('at most maxConcurrentPerOrigin calls are in flight per origin; the rest wait their turn', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = custom(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight--;
      return task('t');
    });
    const client = createA2AClient({ card: card('http://a.test/x'), transports: { CUSTOM: slow }, maxConcurrentPerOrigin: 2 });
    await Promise.all(Array.from({ length: 7 }, () => client.getTask({ id: 't' })));
    expect(peak).toBe(2);
    const unlimited = createA2AClient({ card: card('http://a.test/x'), transports: { CUSTOM: slow }, maxConcurrentPerOrigin: false });
    peak = 0;
    await Promise.all(Array.from({ length: 7 }, () => unlimited.getTask({ id: 't' })));
    expect(peak).toBe(7);
  });

  it('a call waiting for a slot times out under its own timeout', async () => {
    const hold = custom((o) => untilAborted(o.signal));
    const client = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: hold }, maxConcurrentPerOrigin: 1 });
    const controller = new AbortController();
    const first = client.getTask({ id: 'a' }, { signal: controller.signal, timeoutMs: false }).catch((e: unknown) => e);
    const second = await client.getTask({ id: 'b' }, { timeoutMs: 30 }).catch((e: unknown) => e);
    expect(A2ATimeoutError.isInstance(second)).toBe(true);
    controller.abort();
    await first;
  });

  it('a waiting call leaves the line when its signal aborts; a stream holds its slot only until it is open', async () => {
    const hold = custom(
      (o) => untilAborted(o.signal),
      async (o) =>
        (async function* () {
          yield { data: { task: task('t-s') }, id: undefined };
          await untilAborted(o.signal);
        })(),
    );
    const client = createA2AClient({
      card: card('http://a.test'),
      transports: { CUSTOM: hold },
      maxConcurrentPerOrigin: 1,
      timeoutMs: false,
    });
    const holder = new AbortController();
    const first = client.getTask({ id: 'a' }, { signal: holder.signal }).catch((e: unknown) => e);
    const waiting = new AbortController();
    const second = client.getTask({ id: 'b' }, { signal: waiting.signal }).catch((e: unknown) => e);
    waiting.abort();
    expect(A2AAbortError.isInstance(await second)).toBe(true);
    holder.abort();
    await first;

    // An open stream does not keep the slot: a unary call still gets through.
    const stream = client.subscribeToTask({ id: 't-s' })[Symbol.asyncIterator]();
    await stream.next();
    const quick = createA2AClient({
      card: card('http://a.test'),
      transports: { CUSTOM: custom(async () => task('t-q')) },
      maxConcurrentPerOrigin: 1,
    });
    await expect(quick.getTask({ id: 't-q' })).resolves.toMatchObject({ id: 't-q' });
    const unary = new AbortController();
    const call = client.getTask({ id: 'c' }, { signal: unary.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 10));
    unary.abort();
    // The call was sent (and then aborted by us), not left waiting in line behind the stream.
    expect(A2AAbortError.isInstance(await call)).toBe(true);
    await stream.return?.();
  });

  it('refuses a cap that is not an integer >= 1 or false', () => {
    expect(() => createA2AClient({ card: card('http://a.test'), maxConcurrentPerOrigin: 0 })).toThrow(RangeError);
  });
});

describe('per-origin circuit breaker', () => {
  it('opens after failureThreshold failed calls, refuses without sending, and closes after a good probe', async () => {
    let sent = 0;
    let healthy = false;
    // The breaker's own clock: a slow machine cannot let the cooldown pass between two calls.
    let now = 0;
    const flaky = custom(async () => {
      sent++;
      if (!healthy) throw new A2ATransportError('down', { retryable: false });
      return task('t');
    });
    const client = createA2AClient({
      card: card('http://a.test'),
      transports: { CUSTOM: flaky },
      circuitBreaker: { failureThreshold: 2, cooldownMs: 40, clock: () => now },
    });
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => A2ATransportError.isInstance(e));
    await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => A2ATransportError.isInstance(e));
    const refused = await client.getTask({ id: 't' }).catch((e: unknown) => e);
    expect(CircuitOpenError.isInstance(refused)).toBe(true);
    expect((refused as CircuitOpenError).origin).toBe('http://a.test');
    expect(sent).toBe(2);
    now += 50;
    healthy = true;
    await expect(client.getTask({ id: 't' })).resolves.toMatchObject({ id: 't' });
    await expect(client.getTask({ id: 't' })).resolves.toMatchObject({ id: 't' });
    expect(sent).toBe(4);
  });

  it('A2A errors from the agent do not open it; an open origin falls back to the next interface', async () => {
    const notFound = custom(() => Promise.reject(new TaskNotFoundError({ message: 'nope' })));
    const client = createA2AClient({
      card: card('http://a.test'),
      transports: { CUSTOM: notFound },
      circuitBreaker: { failureThreshold: 1 },
    });
    for (let i = 0; i < 3; i++)
      await expect(client.getTask({ id: 't' })).rejects.toSatisfy((e: unknown) => TaskNotFoundError.isInstance(e));

    const calls: string[] = [];
    const byUrl = custom(async (_o, url) => {
      calls.push(url);
      if (url.startsWith('http://down.test')) throw new A2ATransportError('down', { retryable: false });
      return task('t');
    });
    const fallback = createA2AClient({
      card: card('http://down.test/a2a', 'http://up.test/a2a'),
      transports: { CUSTOM: byUrl },
      circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 },
    });
    await fallback.getTask({ id: 't' });
    await fallback.getTask({ id: 't' });
    // The first call tried down.test (opening its breaker) then up.test; later calls skip down.test.
    expect(calls).toEqual(['http://down.test/a2a', 'http://up.test/a2a', 'http://up.test/a2a']);
  });

  it('aborted calls count for nothing', async () => {
    let sent = 0;
    const hang = custom((o) => {
      sent++;
      return untilAborted(o.signal);
    });
    const client = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: hang }, circuitBreaker: { failureThreshold: 1 } });
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const call = client.getTask({ id: 't' }, { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 5);
      expect(A2AAbortError.isInstance(await call)).toBe(true);
    }
    expect(sent).toBe(3);
    // Already aborted: refused before anything is sent.
    const gone = new AbortController();
    gone.abort();
    await expect(client.getTask({ id: 't' }, { signal: gone.signal })).rejects.toSatisfy((e: unknown) => A2AAbortError.isInstance(e));
    expect(sent).toBe(3);
  });

  it('circuitBreaker: false never refuses', async () => {
    let sent = 0;
    const down = custom(async () => {
      sent++;
      throw new A2ATransportError('down', { retryable: false });
    });
    const client = createA2AClient({ card: card('http://a.test'), transports: { CUSTOM: down }, circuitBreaker: false });
    for (let i = 0; i < 8; i++) await client.getTask({ id: 't' }).catch(() => undefined);
    expect(sent).toBe(8);
  });
});

describe('the lean ky path', () => {
  it('fetch gets the URL, method and headers ky built, the body string as is, and the client signal', async () => {
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, task('t-7'))));
    servers.push(server);
    const seen: Array<{ input: unknown; init: RequestInit | undefined }> = [];
    const fetch: FetchLike = (input, init) => {
      seen.push({ input, init });
      return globalThis.fetch(input, init);
    };
    const client = createA2AClient({ card: cardFor(server.url), fetch, headers: { 'X-Custom': 'v' } });
    await client.getTask({ id: 't-7' });
    const [first] = seen;
    expect(first?.input).toBe(`${server.url}/a2a/jsonrpc`);
    expect(first?.init?.method).toBe('POST');
    expect(typeof first?.init?.body).toBe('string');
    expect(first?.init?.body).toBe(server.requests[0]?.body);
    expect(new Headers(first?.init?.headers).get('x-custom')).toBe('v');
    expect(first?.init?.signal).toBeInstanceOf(AbortSignal);
  });
});
