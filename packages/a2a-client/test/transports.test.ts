import type { A2AMethod, AgentCard } from '@a2aplane/a2a-types';
import { TaskNotFoundError } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  createA2AClient,
  selectInterfaces,
  type StreamItem,
  type Transport,
  type TransportCallOptions,
  type TransportFactory,
} from '../src/index.js';
import { cardFor, json, rpcResult, startServer, type TestServer, task } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Recorded {
  method: A2AMethod;
  params: Record<string, unknown>;
  options: TransportCallOptions;
}

/** A scripted transport standing in for a binding the client does not ship (such as gRPC). */
function fakeTransport(behaviour: {
  call?: (r: Recorded) => Promise<unknown>;
  open?: (r: Recorded) => Promise<AsyncIterable<StreamItem>>;
}): { factory: TransportFactory; calls: Recorded[]; urls: string[] } {
  const calls: Recorded[] = [];
  const urls: string[] = [];
  const factory: TransportFactory = (agentInterface) => {
    urls.push(agentInterface.url);
    const transport: Transport = {
      binding: agentInterface.protocolBinding,
      url: agentInterface.url,
      call(method, params, options) {
        const r = { method, params, options };
        calls.push(r);
        return behaviour.call ? behaviour.call(r) : Promise.resolve(task('t-1'));
      },
      open(method, params, options) {
        const r = { method, params, options };
        calls.push(r);
        if (!behaviour.open) throw new Error('no stream');
        return behaviour.open(r);
      },
    };
    return transport;
  };
  return { factory, calls, urls };
}

const grpcCard = (others: AgentCard['supportedInterfaces'] = []): AgentCard =>
  cardFor('http://unused.test', [
    { url: 'grpc.agent.test:443', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'acme' },
    ...others,
  ]);

/** Resolves when `signal` aborts, rejecting with an abort-like error, as a real transport would. */
const untilAborted = (signal: AbortSignal | undefined): Promise<never> =>
  new Promise((_, reject) => {
    signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
  });

describe('transport registry', () => {
  it('a registered GRPC factory is used for the card GRPC interface, with tenant, headers and a signal', async () => {
    const fake = fakeTransport({});
    const client = createA2AClient({ card: grpcCard(), transports: { GRPC: fake.factory }, headers: { 'X-Custom': 'yes' } });
    await expect(client.getTask({ id: 't-1' })).resolves.toMatchObject({ id: 't-1' });
    expect(fake.urls).toEqual(['grpc.agent.test:443']);
    const [recorded] = fake.calls;
    expect(recorded?.method).toBe('GetTask');
    expect(recorded?.params).toEqual({ id: 't-1', tenant: 'acme' });
    expect(recorded?.options.headers).toMatchObject({ 'a2a-version': '1.0', 'x-custom': 'yes' });
    expect(recorded?.options.signal).toBeInstanceOf(AbortSignal);
  });

  it('without a GRPC factory the GRPC interface is skipped; an unsupported-only card is refused', async () => {
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, task('t-9'))));
    servers.push(server);
    const client = createA2AClient({
      card: grpcCard([{ url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]),
    });
    await expect(client.getTask({ id: 't-9' })).resolves.toMatchObject({ id: 't-9' });
    const only = createA2AClient({ card: grpcCard() });
    await expect(only.getTask({ id: 't' })).rejects.toMatchObject({ name: 'AgentCardDiscoveryError', kind: 'no-compatible-interface' });
  });

  it('follows the card order by default and the caller preference list when given', () => {
    const card = cardFor('http://a.test', [
      { url: 'http://a.test/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'grpc.a.test', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'http://a.test/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    const all = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
    expect(selectInterfaces(card, { available: all }).map((i) => i.protocolBinding)).toEqual(['HTTP+JSON', 'GRPC', 'JSONRPC']);
    expect(selectInterfaces(card).map((i) => i.protocolBinding)).toEqual(['HTTP+JSON', 'JSONRPC']);
    expect(selectInterfaces(card, { available: all, preferredBindings: ['GRPC', 'JSONRPC'] }).map((i) => i.protocolBinding)).toEqual([
      'GRPC',
      'JSONRPC',
    ]);
  });

  it('a transport failure of the registered transport falls back to the next interface; an A2A error does not', async () => {
    const server = await startServer((req, res) => json(res, 200, rpcResult(req.body, task('t-2'))));
    servers.push(server);
    const jsonRpc = { url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
    const down = fakeTransport({ call: () => Promise.reject(new A2ATransportError('unavailable', { retryable: false })) });
    const client = createA2AClient({ card: grpcCard([jsonRpc]), transports: { GRPC: down.factory } });
    await expect(client.getTask({ id: 't-2' })).resolves.toMatchObject({ id: 't-2' });
    expect(server.requests).toHaveLength(1);

    const notFound = fakeTransport({ call: () => Promise.reject(new TaskNotFoundError({ message: 'no such task' })) });
    const strict = createA2AClient({ card: grpcCard([jsonRpc]), transports: { GRPC: notFound.factory } });
    await expect(strict.getTask({ id: 'x' })).rejects.toSatisfy((e: unknown) => TaskNotFoundError.isInstance(e));
    expect(server.requests).toHaveLength(1);
  });

  it('the client enforces the timeout and the caller abort through the signal it hands the transport', async () => {
    const hanging = fakeTransport({ call: (r) => untilAborted(r.options.signal) });
    const client = createA2AClient({ card: grpcCard(), transports: { GRPC: hanging.factory } });
    await expect(client.getTask({ id: 't' }, { timeoutMs: 30 })).rejects.toSatisfy((e: unknown) => A2ATimeoutError.isInstance(e));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    await expect(client.getTask({ id: 't' }, { signal: controller.signal, timeoutMs: false })).rejects.toSatisfy((e: unknown) =>
      A2AAbortError.isInstance(e),
    );
  });

  it('streams of a registered transport are validated and deduplicated like SSE ones', async () => {
    const events: StreamItem[] = [
      { data: { task: task('t-3') }, id: undefined },
      { data: { statusUpdate: { taskId: 't-3', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }, id: undefined },
    ];
    const streaming = fakeTransport({
      open: async () =>
        (async function* () {
          yield* events;
        })(),
    });
    const client = createA2AClient({ card: grpcCard(), transports: { GRPC: streaming.factory } });
    const seen: string[] = [];
    for await (const event of client.subscribeToTask({ id: 't-3' })) {
      seen.push(event.task ? 'task' : (event.statusUpdate?.status.state ?? '?'));
    }
    expect(seen).toEqual(['task', 'TASK_STATE_COMPLETED']);
  });

  it('refuses a registry entry that is not a function', () => {
    expect(() => createA2AClient({ card: grpcCard(), transports: { GRPC: 'nope' as unknown as TransportFactory } })).toThrow(TypeError);
  });
});
