import { type A2AClient, createA2AClient, type TransportFactory } from '@a2aplane/a2a-client';
import { A2AError, type A2AMethod, type StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { createGrpcTransportFactory, decodeToJson, encodeFromJson, GRPC_OPERATIONS, type GrpcTransportFactory } from '../src/index.js';
import { baseCard, collect, createGate, startAgent, type TestAgent, userMessage } from './helpers.js';
import { createAuthenticator, createStaticApiKeyVerifier, createTaskUpdater, type AgentExecutor } from '@a2aplane/a2a-server-express';

/**
 * The transport-equivalence suite: every operation (the eleven of the spec, and a resumed stream)
 * over JSON-RPC, REST and gRPC against ONE server core, each through `createA2AClient` with only
 * the preferred binding changed (gRPC through the transport registry); the results must be equal
 * (ids and timestamps the server makes are replaced by stable placeholders, in order of appearance).
 */

type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

let gate = createGate();
const executor: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    const text = context.message.parts.map((p) => ('text' in p ? p.text : '')).join('');
    task.submit();
    task.startWork();
    if (text === 'wait')
      await Promise.race([gate.wait, new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))]);
    if (context.signal.aborted) return;
    task.addArtifact([{ text: `echo: ${text}` }, { data: { n: 1, list: [true, null] } }], {
      artifactId: 'out',
      name: 'echo',
      lastChunk: true,
      metadata: { k: 'v' },
    });
    task.complete('done');
  },
};

let agent: TestAgent;
let clients: Record<Binding, A2AClient>;
let grpcTransports: GrpcTransportFactory;
const overGrpc = new Set<string>();
const AUTH = { 'x-api-key': 'k-1' };

beforeAll(async () => {
  const card = baseCard({ securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } } });
  agent = await startAgent({
    card,
    executor,
    authenticate: createAuthenticator({
      securitySchemes: card.securitySchemes ?? {},
      apiKey: createStaticApiKeyVerifier({ 'k-1': { id: 'alice', scheme: 'key' } }),
    }),
    extendedCard: (principal) => ({ ...card, name: `extended for ${principal.id}` }),
  });
  grpcTransports = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
  // Every operation the gRPC client sends, to check that none fell back to HTTP.
  const counting: TransportFactory = (agentInterface, context) => {
    const transport = grpcTransports(agentInterface, context);
    return {
      binding: transport.binding,
      url: transport.url,
      call: (method, params, options) => {
        overGrpc.add(method);
        return transport.call(method, params, options);
      },
      open: (method, params, options) => {
        overGrpc.add(method);
        return transport.open(method, params, options);
      },
    };
  };
  const client = (binding: Binding) =>
    createA2AClient({
      card: agent.card,
      transports: { GRPC: counting },
      preferredBindings: [binding],
      headers: AUTH,
      retry: { retries: 0 },
    });
  clients = { JSONRPC: client('JSONRPC'), 'HTTP+JSON': client('HTTP+JSON'), GRPC: client('GRPC') };
});
afterAll(async () => {
  grpcTransports?.close();
  await agent?.close();
});

const ID_KEYS = new Set(['id', 'taskId', 'contextId', 'messageId']);

/** Replaces server-made ids (in order of appearance) and timestamps by placeholders. */
function normalize(value: unknown, ids = new Map<string, string>()): unknown {
  if (Array.isArray(value)) return value.map((item) => normalize(item, ids));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'timestamp' && typeof entry === 'string') out[key] = '<ts>';
    else if (ID_KEYS.has(key) && typeof entry === 'string') {
      if (!ids.has(entry)) ids.set(entry, `<id${ids.size}>`);
      out[key] = ids.get(entry);
    } else out[key] = normalize(entry, ids);
  }
  return out;
}

/**
 * A result as the protobuf message it stands for: proto3 does not carry a field at its default
 * (`nextPageToken: ''`), so the HTTP results are compared after a round trip through the message.
 */
function asMessage(method: A2AMethod | undefined, value: unknown): unknown {
  const schema = method && GRPC_OPERATIONS.get(method)?.output;
  if (!schema) return value;
  if (Array.isArray(value)) return value.map((item) => asMessage(method, item));
  return decodeToJson(schema, encodeFromJson(schema, value));
}

/** Runs `op` once per binding and expects the three normalized results to be equal. */
async function same<T>(method: A2AMethod | undefined, op: (client: A2AClient, binding: Binding) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (const binding of BINDINGS) results.push(await op(clients[binding] as A2AClient, binding));
  const [jsonRpc, rest, grpc] = results.map((r) => normalize(asMessage(method, r)));
  expect(rest, 'REST vs JSON-RPC').toEqual(jsonRpc);
  expect(grpc, 'gRPC vs JSON-RPC').toEqual(jsonRpc);
  return results;
}

describe('transport equivalence: JSON-RPC, REST and gRPC over one server core', () => {
  it('SendMessage', async () => {
    const [result] = await same('SendMessage', (c) => c.sendMessage({ message: userMessage('hi') }));
    expect(result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('SendMessage: a reused messageId with another message runs as a new message; its retry is a repeat', async () => {
    const results = await same(undefined, async (c, binding) => {
      const messageId = `reused-${binding}`;
      const first = await c.sendMessage({ message: userMessage('first', { messageId }) });
      const other = await c.sendMessage({ message: userMessage('second', { messageId }) });
      const retry = await c.sendMessage({ message: userMessage('second', { messageId }) });
      return {
        other: other.task?.artifacts?.[0]?.parts[0],
        newTask: other.task?.id !== first.task?.id,
        retrySameTask: retry.task?.id === other.task?.id,
      };
    });
    expect(results[0]).toEqual({ other: { text: 'echo: second' }, newTask: true, retrySameTask: true });
  });

  it('SendStreamingMessage', async () => {
    const [events] = await same('SendStreamingMessage', (c) =>
      collect(c.sendStreamingMessage({ message: userMessage('stream') }) as AsyncIterable<StreamResponse>),
    );
    expect(events?.length).toBeGreaterThan(2);
  });

  it('GetTask and ListTasks return the same task', async () => {
    const sent = await clients.JSONRPC.sendMessage({ message: userMessage('get me', { contextId: 'ctx-list' }) });
    const id = sent.task?.id as string;
    const [got] = await same('GetTask', (c) => c.getTask({ id, historyLength: 1 }));
    expect(got?.id).toBe(id);
    const [listed] = await same('ListTasks', (c) => c.listTasks({ contextId: 'ctx-list', includeArtifacts: true }));
    expect(listed?.tasks.map((t) => t.id)).toEqual([id]);
  });

  it('CancelTask and SubscribeToTask', async () => {
    gate = createGate();
    const started = await Promise.all(
      BINDINGS.map(() => clients.JSONRPC.sendMessage({ message: userMessage('wait'), configuration: { returnImmediately: true } })),
    );
    const ids = started.map((s) => s.task?.id as string);
    const byBinding = (binding: Binding) => ids[BINDINGS.indexOf(binding)] as string;
    const canceled = await same('CancelTask', (c, binding) => c.cancelTask({ id: byBinding(binding) }));
    expect(canceled.map((t) => t.status.state)).toEqual(['TASK_STATE_CANCELED', 'TASK_STATE_CANCELED', 'TASK_STATE_CANCELED']);

    gate = createGate();
    const running = await Promise.all(
      BINDINGS.map(() => clients.JSONRPC.sendMessage({ message: userMessage('wait'), configuration: { returnImmediately: true } })),
    );
    const streams = await Promise.all(
      BINDINGS.map(async (binding, i) => {
        const client = clients[binding] as A2AClient;
        const iterator = client.subscribeToTask({ id: running[i]?.task?.id as string })[Symbol.asyncIterator]();
        const first = await iterator.next();
        return { first: first.value as StreamResponse, iterator };
      }),
    );
    gate.open();
    const events = await Promise.all(
      streams.map(async ({ first, iterator }) => {
        const all = [first];
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) all.push(next.value as StreamResponse);
        return normalize(all);
      }),
    );
    expect(events[1]).toEqual(events[0]);
    expect(events[2]).toEqual(events[0]);
    expect((events[0] as StreamResponse[]).at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('push notification config create, get, list, delete', async () => {
    const sent = await clients.JSONRPC.sendMessage({ message: userMessage('push') });
    const taskId = sent.task?.id as string;
    await same(undefined, (c, binding) =>
      c
        .createTaskPushNotificationConfig({ taskId, id: `cfg-${binding}`, url: 'https://hooks.example.com/a2a', token: 't' })
        .then(({ id: _id, ...rest }) => rest),
    );
    await same(undefined, (c, binding) =>
      c.getTaskPushNotificationConfig({ taskId, id: `cfg-${binding}` }).then(({ id: _id, ...rest }) => rest),
    );
    await same('ListTaskPushNotificationConfigs', (c) => c.listTaskPushNotificationConfigs({ taskId }));
    await same('DeleteTaskPushNotificationConfig', (c, binding) => c.deleteTaskPushNotificationConfig({ taskId, id: `cfg-${binding}` }));
    expect((await clients.GRPC.listTaskPushNotificationConfigs({ taskId })).configs ?? []).toEqual([]);
  });

  it('GetExtendedAgentCard', async () => {
    const [card] = await same('GetExtendedAgentCard', (c) => c.getExtendedAgentCard({}));
    expect(card?.name).toBe('extended for alice');
  });

  it('SubscribeToTask resumed after an event id (Last-Event-ID; last-event-id metadata over gRPC): the same events', async () => {
    const sent = await clients.JSONRPC.sendMessage({ message: userMessage('replay me') });
    const id = sent.task?.id as string;
    // The task's log: submitted, working, artifact, completed. Event ids are opaque (the bus's), so
    // the second one is read from the log; resuming after it yields the last two.
    const log = await agent.core.eventBus.read({ tenant: '', taskId: id });
    const afterWorking = log?.events[1]?.id as string;
    expect(log?.events.map((record) => Object.keys(record.event)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const [events] = await same('SubscribeToTask', (c) => collect(c.subscribeToTask({ id }, { lastEventId: afterWorking })));
    expect(events?.map((e) => Object.keys(e)[0])).toEqual(['artifactUpdate', 'statusUpdate']);
    expect(events?.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('errors: the same class, reason, domain and metadata', async () => {
    const errors = await same(undefined, async (c) => {
      const error = await c.getTask({ id: 'missing' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(A2AError.isInstance(error)).toBe(true);
      const { reason, domain, metadata, message, grpcStatus } = error as A2AError;
      return { reason, domain, metadata, message, grpcStatus };
    });
    expect(errors[0]?.reason).toBe('TASK_NOT_FOUND');
  });

  it('the gRPC client sent every one of the eleven operations over gRPC', () => {
    expect([...overGrpc].sort()).toEqual([...GRPC_OPERATIONS.keys()].sort());
  });
});
