import { afterEach, describe, expect, it, vi } from 'vitest';
import { createA2AClient, discoverAgentCard, type FetchLike, structuralValidator } from '../src/index.js';
import { strictValidator } from '../src/strict.js';
import { cardFor } from './helpers/server.js';
import { causedBy, loadFailure } from './helpers/chunks.js';

// A peer whose ProtoJSON writer uses the proto field names (allowed by spec §5.5): the client reads
// results, stream events and cards under either spelling and hands back the camelCase model.
const protoTask = {
  id: 't-1',
  context_id: 'c-1',
  status: {
    state: 'TASK_STATE_COMPLETED',
    message: {
      message_id: 'm-2',
      context_id: 'c-1',
      task_id: 't-1',
      role: 'ROLE_AGENT',
      parts: [{ text: 'done', media_type: 'text/plain' }],
    },
  },
  artifacts: [{ artifact_id: 'a-1', parts: [{ data: { keep_this: 1 } }] }],
  metadata: { some_key: 1 },
};

describe('ProtoJSON results read by the client', () => {
  for (const [name, validator] of [
    ['structural (default)', structuralValidator],
    ['strict', strictValidator],
  ] as const) {
    it(`${name}: a task, a stream event and a card in proto names come out camelCase`, async () => {
      // The client awaits `prepare` before each check (the structural validator loads its renamer there).
      await validator.prepare?.(protoTask);
      const task = validator.result('GetTask', protoTask);
      expect(task.ok).toBe(true);
      if (!task.ok) return;
      expect(task.value.contextId).toBe('c-1');
      expect(task.value.status.message?.messageId).toBe('m-2');
      expect(task.value.status.message?.parts[0]?.mediaType).toBe('text/plain');
      expect(task.value.artifacts?.[0]?.artifactId).toBe('a-1');
      expect(task.value.artifacts?.[0]?.parts[0]?.data).toEqual({ keep_this: 1 });
      expect(task.value.metadata).toEqual({ some_key: 1 });

      const streamed = { status_update: { task_id: 't-1', context_id: 'c-1', status: { state: 'TASK_STATE_WORKING' } } };
      await validator.prepare?.(streamed);
      const event = validator.result('SendStreamingMessage', streamed);
      expect(event.ok && event.value.statusUpdate?.taskId).toBe('t-1');

      const { supportedInterfaces, defaultInputModes, defaultOutputModes, ...rest } = cardFor('http://agent.test');
      const protoCard = {
        ...rest,
        supported_interfaces: supportedInterfaces.map(({ protocolBinding, protocolVersion, ...i }) => ({
          ...i,
          protocol_binding: protocolBinding,
          protocol_version: protocolVersion,
        })),
        default_input_modes: defaultInputModes,
        default_output_modes: defaultOutputModes,
      };
      await validator.prepare?.(protoCard);
      const card = validator.card(protoCard);
      expect(card.ok && card.value.supportedInterfaces[0]?.protocolBinding).toBe(supportedInterfaces[0]?.protocolBinding);
      expect(card.ok && card.value.defaultInputModes).toEqual(defaultInputModes);
    });
  }

  it('a client call over JSON-RPC returns the camelCase task', async () => {
    const fetch: FetchLike = async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      const { id } = JSON.parse(text) as { id: unknown };
      return new Response(JSON.stringify({ jsonrpc: '2.0', id, result: protoTask }), { headers: { 'Content-Type': 'application/json' } });
    };
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch, retry: { retries: 0 } });
    const task = await client.getTask({ id: 't-1' });
    expect(task.contextId).toBe('c-1');
    expect(JSON.stringify(task)).not.toContain('context_id');
  });

  it('card discovery reads a card in proto names', async () => {
    const { supportedInterfaces, ...rest } = cardFor('http://agent.test');
    const fetch: FetchLike = async () =>
      new Response(JSON.stringify({ ...rest, supported_interfaces: supportedInterfaces }), {
        headers: { 'Content-Type': 'application/json' },
      });
    const card = await discoverAgentCard('http://agent.test', { fetch });
    expect(card.supportedInterfaces).toEqual(supportedInterfaces);
  });
});

// The renamer and its name table are a chunk loaded when the first value with a proto name arrives
// (decision 0044). These tests load a fresh copy of the package, so that nothing has loaded it yet.
const RENAMER = '../src/proto-renamer.js';

async function freshPackage(failingRenamer: boolean): Promise<typeof import('../src/index.js')> {
  vi.resetModules();
  if (failingRenamer)
    vi.doMock(RENAMER, () => {
      throw loadFailure;
    });
  return import('../src/index.js');
}

function jsonRpcFetch(result: unknown): FetchLike {
  return async (input, init) => {
    const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
    const { id } = JSON.parse(text) as { id: unknown };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'Content-Type': 'application/json' } });
  };
}

describe('the ProtoJSON renamer loaded on demand', () => {
  afterEach(() => {
    vi.doUnmock(RENAMER);
    vi.resetModules();
  });

  it('JSON names need no renamer: prepare answers at once, Struct and map keys with `_` included', async () => {
    const { structuralValidator: fresh } = await freshPackage(true);
    const camel = {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a-1', parts: [{ data: { keep_this: 1 } }] }],
      metadata: { some_key: 1 },
    };
    expect(fresh.prepare?.(camel)).toBeUndefined();
    expect(fresh.result('GetTask', camel).ok).toBe(true);
    const withSchemes = { ...cardFor('http://agent.test'), securitySchemes: { api_key: { apiKeySecurityScheme: { name: 'x-key' } } } };
    expect(fresh.prepare?.(withSchemes)).toBeUndefined();
    expect(fresh.card(withSchemes).ok).toBe(true);
  });

  it('what prepare checked spares only that value the second walk: another value with proto names is still refused', async () => {
    const { structuralValidator: fresh } = await freshPackage(false);
    const camel = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } };
    expect(fresh.prepare?.(camel)).toBeUndefined();
    const other = fresh.result('GetTask', protoTask);
    expect(!other.ok && other.message).toContain('await validator.prepare(value)');
    // Taken by the first result: the checked value itself is walked again, and still passes.
    expect(fresh.result('GetTask', camel).ok).toBe(true);
    expect(fresh.result('GetTask', camel).ok).toBe(true);
  });

  it('used alone, the structural validator refuses proto names until prepare has loaded the renamer', async () => {
    const { structuralValidator: fresh } = await freshPackage(false);
    const before = fresh.result('GetTask', protoTask);
    expect(before.ok).toBe(false);
    expect(!before.ok && before.message).toContain('await validator.prepare(value)');
    await fresh.prepare?.(protoTask);
    const after = fresh.result('GetTask', protoTask);
    expect(after.ok && after.value.contextId).toBe('c-1');
  });

  it('a renamer that cannot load fails the call with a retryable A2ATransportError; the next call loads it', async () => {
    const { createA2AClient, A2ATransportError } = await freshPackage(true);
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: jsonRpcFetch(protoTask), retry: { retries: 0 } });
    const error = await client.getTask({ id: 't-1' }).catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect(A2ATransportError.isInstance(error) && error.retryable).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);

    vi.doUnmock(RENAMER);
    const task = await client.getTask({ id: 't-1' });
    expect(task.contextId).toBe('c-1');
  });

  it('discovery of a card in proto names whose renamer cannot load fails with a network discovery error', async () => {
    const { discoverAgentCard: discover, AgentCardDiscoveryError } = await freshPackage(true);
    const { supportedInterfaces, ...rest } = cardFor('http://agent.test');
    const fetch: FetchLike = async () =>
      new Response(JSON.stringify({ ...rest, supported_interfaces: supportedInterfaces }), {
        headers: { 'Content-Type': 'application/json' },
      });
    const error = await discover('http://agent.test', { fetch }).catch((e: unknown) => e);
    expect(AgentCardDiscoveryError.isInstance(error) && error.kind).toBe('network');
    expect(causedBy(error, loadFailure)).toBe(true);
  });

  it('a stream whose event needs the renamer loads it before the event is delivered', async () => {
    const { createA2AClient: fresh } = await freshPackage(false);
    const fetch: FetchLike = async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      const { id } = JSON.parse(text) as { id: unknown };
      const event = { jsonrpc: '2.0', id, result: { task: protoTask } };
      return new Response(`id: 1\ndata: ${JSON.stringify(event)}\n\n`, { headers: { 'Content-Type': 'text/event-stream' } });
    };
    const client = fresh({ card: cardFor('http://agent.test'), fetch, retry: { retries: 0 } });
    const events = [];
    for await (const event of client.sendStreamingMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }))
      events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]?.task?.contextId).toBe('c-1');
  });
});
