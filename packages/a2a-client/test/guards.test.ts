import { type A2AMethod, InvalidAgentResponseError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { A2ATransportError, createA2AClient, type FetchLike, structuralValidator } from '../src/index.js';
import { strictValidator } from '../src/strict.js';
import { cardFor } from './helpers/server.js';

const message = { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } };

/** A fetch that answers every JSON-RPC call with `reply(requestId)` as the raw body. */
function scripted(reply: (id: unknown) => string, status = 200): { fetch: FetchLike; calls: () => number } {
  let calls = 0;
  const fetch: FetchLike = async (input, init) => {
    calls++;
    const text = input instanceof Request ? await input.text() : String(init?.body ?? '');
    const { id } = JSON.parse(text) as { id: unknown };
    return new Response(reply(id), { status, headers: { 'Content-Type': 'application/json' } });
  };
  return { fetch, calls: () => calls };
}

const clientFor = (fetch: FetchLike, validator?: typeof strictValidator) =>
  createA2AClient({
    card: cardFor('http://agent.test'),
    fetch,
    retry: { retries: 0 },
    ...(validator ? { validator } : {}),
  });

const send = { message: { messageId: 'm-0', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] } };

describe('structural guards: malformed JSON-RPC envelopes are A2ATransportError, never a crash', () => {
  const envelopes: [string, (id: unknown) => string][] = [
    ['not JSON', () => '{"jsonrpc": "2.0", "id": '],
    ['empty body', () => ''],
    ['a JSON array', (id) => JSON.stringify([{ jsonrpc: '2.0', id, result: { message } }])],
    ['a JSON string', () => '"hello"'],
    ['null', () => 'null'],
    ['missing jsonrpc', (id) => JSON.stringify({ id, result: { message } })],
    ['jsonrpc 1.0', (id) => JSON.stringify({ jsonrpc: '1.0', id, result: { message } })],
    ['wrong id', () => JSON.stringify({ jsonrpc: '2.0', id: 'someone-else', result: { message } })],
    ['missing id on a result', () => JSON.stringify({ jsonrpc: '2.0', result: { message } })],
    ['id of the wrong type', () => JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, result: { message } })],
    ['neither result nor error', (id) => JSON.stringify({ jsonrpc: '2.0', id })],
    ['error without a numeric code', (id) => JSON.stringify({ jsonrpc: '2.0', id, error: { code: 'oops', message: 'x' } })],
  ];
  it.each(envelopes)('%s', async (_name, reply) => {
    const error = await clientFor(scripted(reply).fetch)
      .sendMessage(send)
      .catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect(error).not.toBeInstanceOf(TypeError);
  });
});

describe('structural guards: malformed results are InvalidAgentResponseError, never a crash', () => {
  const results: [string, A2AMethod, unknown][] = [
    ['null result', 'SendMessage', null],
    ['array result', 'SendMessage', [message]],
    ['string result', 'SendMessage', 'done'],
    ['neither task nor message', 'SendMessage', {}],
    ['both task and message', 'SendMessage', { task, message }],
    ['message without parts', 'SendMessage', { message: { messageId: 'm', role: 'ROLE_AGENT' } }],
    ['message with empty parts', 'SendMessage', { message: { ...message, parts: [] } }],
    ['part with two contents', 'SendMessage', { message: { ...message, parts: [{ text: 'a', url: 'b' }] } }],
    ['part with no content', 'SendMessage', { message: { ...message, parts: [{ mediaType: 'text/plain' }] } }],
    ['part text not a string', 'SendMessage', { message: { ...message, parts: [{ text: 42 }] } }],
    ['role not a v1.0 role', 'SendMessage', { message: { ...message, role: 'agent' } }],
    ['empty messageId', 'SendMessage', { message: { ...message, messageId: '' } }],
    ['task without id', 'GetTask', { status: { state: 'TASK_STATE_WORKING' } }],
    ['task id a number', 'GetTask', { ...task, id: 7 }],
    ['unknown task state', 'GetTask', { ...task, status: { state: 'NOT_A_STATE' } }],
    ['v0.3 task state', 'GetTask', { ...task, status: { state: 'completed' } }],
    ['unspecified task state', 'GetTask', { ...task, status: { state: 'TASK_STATE_UNSPECIFIED' } }],
    ['status not an object', 'GetTask', { ...task, status: 'done' }],
    ['history not an array', 'GetTask', { ...task, history: {} }],
    ['artifact without parts', 'GetTask', { ...task, artifacts: [{ artifactId: 'a' }] }],
    ['metadata an array', 'GetTask', { ...task, metadata: [] }],
    ['tasks not an array', 'ListTasks', { tasks: 'none' }],
    ['a bad task in a list', 'ListTasks', { tasks: [task, { id: 't-2' }] }],
    ['totalSize a string', 'ListTasks', { totalSize: '3' }],
    ['push config without url', 'GetTaskPushNotificationConfig', { id: 'p', taskId: 't' }],
    ['push configs not an array', 'ListTaskPushNotificationConfigs', { configs: {} }],
    ['empty result not an object', 'DeleteTaskPushNotificationConfig', null],
    ['card without interfaces', 'GetExtendedAgentCard', { ...cardFor('http://x'), supportedInterfaces: [] }],
    ['card without name', 'GetExtendedAgentCard', { ...cardFor('http://x'), name: undefined }],
  ];

  it.each(results)('%s (%s): the guard refuses without throwing', (_name, method, value) => {
    const checked = structuralValidator.result(method, value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.message).toMatch(/expected/);
      expect(checked.violations).toHaveLength(1);
    }
  });

  it.each<[A2AMethod, unknown, string]>([
    ['SendMessage', { message: { ...message, parts: [{ text: 'ok' }, { text: 42 }] } }, 'message.parts[1].text: expected a string'],
    [
      'SendMessage',
      { message: { ...message, parts: [{ text: 'a', url: 'b' }] } },
      'message.parts[0]: expected exactly one of text, raw, url, data',
    ],
    [
      'GetTask',
      { ...task, artifacts: [{ artifactId: 'a', parts: [{ text: 'x', metadata: 5 }] }] },
      'artifacts[0].parts[0].metadata: expected an object',
    ],
    ['ListTasks', { tasks: [task, { ...task, id: 5 }] }, 'tasks[1].id: expected a non-empty string'],
    [
      'GetExtendedAgentCard',
      { ...cardFor('http://x'), skills: [{ id: 's', name: 'n', description: 'd', tags: [1] }] },
      'skills[0].tags[0]: expected a string',
    ],
    ['GetTask', null, 'expected an object'],
  ])('%s: the refusal names the field by its path (%s)', (method, value, text) => {
    const checked = structuralValidator.result(method, value);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.message).toBe(text);
      expect(checked.violations[0]?.field).toBe(text.includes(':') ? text.slice(0, text.indexOf(':')) : '');
    }
  });

  it.each(results)('%s (%s): the client rejects with InvalidAgentResponseError', async (_name, method, value) => {
    const client = clientFor(scripted((id) => JSON.stringify({ jsonrpc: '2.0', id, result: value })).fetch);
    const calls: Record<string, () => Promise<unknown>> = {
      SendMessage: () => client.sendMessage(send),
      GetTask: () => client.getTask({ id: 't-1' }),
      ListTasks: () => client.listTasks({}),
      GetTaskPushNotificationConfig: () => client.getTaskPushNotificationConfig({ taskId: 't', id: 'p' }),
      ListTaskPushNotificationConfigs: () => client.listTaskPushNotificationConfigs({ taskId: 't' }),
      DeleteTaskPushNotificationConfig: () => client.deleteTaskPushNotificationConfig({ taskId: 't', id: 'p' }),
      GetExtendedAgentCard: () => client.getExtendedAgentCard({}),
    };
    const error = await (calls[method] as () => Promise<unknown>)().catch((e: unknown) => e);
    expect(InvalidAgentResponseError.isInstance(error)).toBe(true);
  });

  it('refuses odd inputs of every kind for every method without throwing', () => {
    const odd: unknown[] = [undefined, null, 0, Number.NaN, '', 'x', true, [], [{}], {}, { __proto__: { task } }, Object.create(null)];
    const methods: A2AMethod[] = [
      'SendMessage',
      'SendStreamingMessage',
      'GetTask',
      'ListTasks',
      'CancelTask',
      'SubscribeToTask',
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
      'GetExtendedAgentCard',
    ];
    for (const method of methods) {
      for (const value of odd) {
        expect(() => structuralValidator.result(method, value)).not.toThrow();
        expect(() => structuralValidator.params(method, value)).not.toThrow();
      }
      expect(() => structuralValidator.card(odd)).not.toThrow();
    }
    // Objects with no own fields pass only where every field is optional.
    expect(structuralValidator.result('ListTasks', {}).ok).toBe(true);
    expect(structuralValidator.result('DeleteTaskPushNotificationConfig', {}).ok).toBe(true);
    expect(structuralValidator.result('SendMessage', Object.create(null)).ok).toBe(false);
  });
});

describe('structural guards: accepted values', () => {
  it('passes a well-formed result through as the same object (no copy on the hot path)', () => {
    const value = { message };
    const checked = structuralValidator.result('SendMessage', value);
    expect(checked).toEqual({ ok: true, value });
    if (checked.ok) expect(checked.value).toBe(value);
  });

  it('accepts every stream item kind', () => {
    const items = [
      { task },
      { message },
      { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
      { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ data: { x: 1 } }] }, append: true } },
    ];
    for (const item of items) expect(structuralValidator.result('SendStreamingMessage', item).ok).toBe(true);
    expect(
      structuralValidator.result('SubscribeToTask', { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } }).ok,
    ).toBe(false);
  });

  it('fills in the ProtoJSON defaults the schemas fill in', () => {
    expect(structuralValidator.result('ListTasks', {})).toEqual({
      ok: true,
      value: { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 },
    });
    const { skills: _s, defaultInputModes: _i, ...bare } = cardFor('http://x');
    const card = structuralValidator.card({ ...bare, skills: [{ id: 's', name: 'S', description: 'd' }] });
    expect(card.ok && card.value.defaultInputModes).toEqual([]);
    expect(card.ok && card.value.skills[0]?.tags).toEqual([]);
  });

  it('rejects bad params with a TypeError before sending', async () => {
    const { fetch, calls } = scripted(() => '{}');
    const client = clientFor(fetch);
    const bad: unknown[] = [
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } },
      { message: { messageId: 'm', role: 'user', parts: [{ text: 'x' }] } },
      { message: 'hi' },
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] }, tenant: 5 },
    ];
    for (const params of bad) {
      await expect(client.sendMessage(params as typeof send)).rejects.toBeInstanceOf(TypeError);
    }
    // @ts-expect-error: taskId is required
    await expect(client.getTaskPushNotificationConfig({ id: 'p' })).rejects.toBeInstanceOf(TypeError);
    expect(calls()).toBe(0);
  });
});

describe('strictValidator (@a2aplane/a2a-client/strict)', () => {
  // Each of these is structurally fine (the guards let it through) but breaks the full schema.
  const deep: [string, A2AMethod, unknown][] = [
    ['a timestamp that is not ISO-8601 UTC', 'GetTask', { ...task, status: { ...task.status, timestamp: 'yesterday' } }],
    ['raw bytes that are not base64', 'SendMessage', { message: { ...message, parts: [{ raw: '***not base64***' }] } }],
    [
      'a skill-less extension with a non-string description',
      'GetExtendedAgentCard',
      {
        ...cardFor('http://x'),
        capabilities: { extensions: [{ uri: 'urn:x', description: 7 }] },
      },
    ],
    [
      'a push config with an empty authentication scheme',
      'GetTaskPushNotificationConfig',
      {
        url: 'https://hook',
        authentication: { scheme: '' },
      },
    ],
  ];

  it.each(deep)('%s: guards accept, strict rejects', (_name, method, value) => {
    expect(structuralValidator.result(method, value).ok).toBe(true);
    const strict = strictValidator.result(method, value);
    expect(strict.ok).toBe(false);
    if (!strict.ok) expect(strict.violations.length).toBeGreaterThan(0);
  });

  it('turns a strict failure into InvalidAgentResponseError through the client', async () => {
    const value = deep[0]![2];
    const reply = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: value });
    await expect(clientFor(scripted(reply).fetch).getTask({ id: 't-1' })).resolves.toMatchObject({ id: 't-1' });
    const error = await clientFor(scripted(reply).fetch, strictValidator)
      .getTask({ id: 't-1' })
      .catch((e: unknown) => e);
    expect(InvalidAgentResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/timestamp/);
  });

  it('strips unknown fields and checks params with the schemas', async () => {
    const reply = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: { ...task, vendorField: 1 } });
    const loose = await clientFor(scripted(reply).fetch).getTask({ id: 't-1' });
    const strict = await clientFor(scripted(reply).fetch, strictValidator).getTask({ id: 't-1' });
    expect(loose).toHaveProperty('vendorField', 1);
    expect(strict).not.toHaveProperty('vendorField');
    const client = clientFor(scripted(reply).fetch, strictValidator);
    await expect(client.getTask({ id: 't-1', historyLength: -1 })).rejects.toBeInstanceOf(TypeError);
  });

  it('validates discovered cards with the full schema', async () => {
    const card = { ...cardFor('http://x'), iconUrl: 7 };
    const fetch: FetchLike = async () => new Response(JSON.stringify(card), { headers: { 'Content-Type': 'application/json' } });
    const loose = createA2AClient({ baseUrl: 'http://agent.test', fetch });
    await expect(loose.getCard()).resolves.toMatchObject({ name: 'Test agent' });
    const strict = createA2AClient({ baseUrl: 'http://agent.test', fetch, validator: strictValidator });
    await expect(strict.getCard()).rejects.toMatchObject({ name: 'AgentCardDiscoveryError', kind: 'malformed' });
  });
});
