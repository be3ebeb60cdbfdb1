import { describe, expect, it } from 'vitest';
import { createA2AClient, discoverAgentCard, type FetchLike, structuralValidator } from '../src/index.js';
import { strictValidator } from '../src/strict.js';
import { cardFor } from './helpers/server.js';

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

function jsonRpcFetch(result: unknown): FetchLike {
  return async (input, init) => {
    const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
    const { id } = JSON.parse(text) as { id: unknown };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'Content-Type': 'application/json' } });
  };
}

describe('the ProtoJSON renamer in the structural validator', () => {
  it('JSON names pass as they are, Struct and map keys with `_` included', () => {
    const camel = {
      id: 't-1',
      contextId: 'c-1',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a-1', parts: [{ data: { keep_this: 1 } }] }],
      metadata: { some_key: 1 },
    };
    const task = structuralValidator.result('GetTask', camel);
    expect(task.ok && task.value).toBe(camel);
    const withSchemes = { ...cardFor('http://agent.test'), securitySchemes: { api_key: { apiKeySecurityScheme: { name: 'x-key' } } } };
    const card = structuralValidator.card(withSchemes);
    expect(card.ok && card.value.securitySchemes).toEqual(withSchemes.securitySchemes);
  });

  it('used alone, the structural validator reads proto names, and refuses a field sent under both names', () => {
    const read = structuralValidator.result('GetTask', protoTask);
    expect(read.ok && read.value.contextId).toBe('c-1');
    const both = structuralValidator.result('GetTask', { ...protoTask, contextId: 'c-1' });
    expect(both.ok).toBe(false);
    expect(!both.ok && both.violations.map((v) => v.field)).toContain('context_id');
  });

  it('a unary call reads a result in proto names', async () => {
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch: jsonRpcFetch(protoTask), retry: { retries: 0 } });
    const task = await client.getTask({ id: 't-1' });
    expect(task.contextId).toBe('c-1');
  });

  it('a stream event in proto names is delivered camelCase', async () => {
    const fetch: FetchLike = async (input, init) => {
      const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
      const { id } = JSON.parse(text) as { id: unknown };
      const event = { jsonrpc: '2.0', id, result: { task: protoTask } };
      return new Response(`id: 1\ndata: ${JSON.stringify(event)}\n\n`, { headers: { 'Content-Type': 'text/event-stream' } });
    };
    const client = createA2AClient({ card: cardFor('http://agent.test'), fetch, retry: { retries: 0 } });
    const events = [];
    for await (const event of client.sendStreamingMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }))
      events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]?.task?.contextId).toBe('c-1');
  });
});
