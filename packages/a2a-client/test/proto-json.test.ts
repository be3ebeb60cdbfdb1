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
    it(`${name}: a task, a stream event and a card in proto names come out camelCase`, () => {
      const task = validator.result('GetTask', protoTask);
      expect(task.ok).toBe(true);
      if (!task.ok) return;
      expect(task.value.contextId).toBe('c-1');
      expect(task.value.status.message?.messageId).toBe('m-2');
      expect(task.value.status.message?.parts[0]?.mediaType).toBe('text/plain');
      expect(task.value.artifacts?.[0]?.artifactId).toBe('a-1');
      expect(task.value.artifacts?.[0]?.parts[0]?.data).toEqual({ keep_this: 1 });
      expect(task.value.metadata).toEqual({ some_key: 1 });

      const event = validator.result('SendStreamingMessage', {
        status_update: { task_id: 't-1', context_id: 'c-1', status: { state: 'TASK_STATE_WORKING' } },
      });
      expect(event.ok && event.value.statusUpdate?.taskId).toBe('t-1');

      const { supportedInterfaces, defaultInputModes, defaultOutputModes, ...rest } = cardFor('http://agent.test');
      const card = validator.card({
        ...rest,
        supported_interfaces: supportedInterfaces.map(({ protocolBinding, protocolVersion, ...i }) => ({
          ...i,
          protocol_binding: protocolBinding,
          protocol_version: protocolVersion,
        })),
        default_input_modes: defaultInputModes,
        default_output_modes: defaultOutputModes,
      });
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
