import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  OPERATIONS,
  parseOperationParams,
  parseWith,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
} from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  FAST_SHAPES,
  fastParseArtifactUpdate,
  fastParseMessage,
  fastParseSendMessageRequest,
  fastParseStatusUpdate,
  fastParseTask,
} from '../src/core/event-validation.js';
import { toStreamResponse } from '../src/core/agent-event.js';

const shapeKeys = (schema: unknown): string[] =>
  Object.keys((schema as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape);

const ts = '2026-01-02T03:04:05.678Z';
const msg = { messageId: 'm', role: 'ROLE_AGENT', taskId: 't', contextId: 'c', parts: [{ text: 'hi' }] };

/** Valid and invalid events, including the corners zod has opinions about. */
const cases: { name: string; schema: Parameters<typeof parseWith>[0]; fast: (value: unknown) => unknown; value: unknown }[] = [
  { name: 'message', schema: MessageSchema, fast: fastParseMessage, value: msg },
  {
    name: 'message, every field, unknown ones dropped',
    schema: MessageSchema,
    fast: fastParseMessage,
    value: {
      ...msg,
      extra: 1,
      metadata: { a: { b: [1] } },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
      parts: [
        { text: 'a', mediaType: 'text/plain', filename: 'a.txt', metadata: { k: 'v' }, junk: true },
        { data: { n: [1, 2] } },
        { url: 'https://x/y' },
        { raw: 'aGVsbG8=' },
      ],
    },
  },
  {
    name: 'message, optional key present as undefined',
    schema: MessageSchema,
    fast: fastParseMessage,
    value: { ...msg, contextId: undefined },
  },
  { name: 'message, empty id', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, messageId: '' } },
  { name: 'message, user role unspecified', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, role: 'ROLE_UNSPECIFIED' } },
  { name: 'message, no parts', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, parts: [] } },
  {
    name: 'message, part with two contents',
    schema: MessageSchema,
    fast: fastParseMessage,
    value: { ...msg, parts: [{ text: 'a', url: 'b' }] },
  },
  { name: 'message, part with none', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, parts: [{ mediaType: 'x' }] } },
  { name: 'message, raw that is not base64', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, parts: [{ raw: '***' }] } },
  { name: 'message, metadata that is an array', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, metadata: [1] } },
  { name: 'message, sparse parts', schema: MessageSchema, fast: fastParseMessage, value: { ...msg, parts: new Array(2) } },
  {
    name: 'task',
    schema: TaskSchema,
    fast: fastParseTask,
    value: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED', timestamp: ts }, history: [msg] },
  },
  {
    name: 'task with artifacts and status message',
    schema: TaskSchema,
    fast: fastParseTask,
    value: {
      id: 't',
      status: { state: 'TASK_STATE_COMPLETED', message: msg },
      artifacts: [{ artifactId: 'a', name: 'n', description: 'd', parts: [{ text: 'x' }], extensions: [] }],
      metadata: {},
    },
  },
  {
    name: 'task, unspecified state',
    schema: TaskSchema,
    fast: fastParseTask,
    value: { id: 't', status: { state: 'TASK_STATE_UNSPECIFIED' } },
  },
  {
    name: 'task, timestamp with an offset',
    schema: TaskSchema,
    fast: fastParseTask,
    value: { id: 't', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-02T03:04:05+01:00' } },
  },
  {
    name: 'task, impossible date',
    schema: TaskSchema,
    fast: fastParseTask,
    value: { id: 't', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-02-30T03:04:05Z' } },
  },
  {
    name: 'status update',
    schema: TaskStatusUpdateEventSchema,
    fast: fastParseStatusUpdate,
    value: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: ts }, metadata: { m: 1 } },
  },
  {
    name: 'status update without contextId',
    schema: TaskStatusUpdateEventSchema,
    fast: fastParseStatusUpdate,
    value: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } },
  },
  {
    name: 'artifact update',
    schema: TaskArtifactUpdateEventSchema,
    fast: fastParseArtifactUpdate,
    value: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: true, lastChunk: false },
  },
  {
    name: 'artifact update, append not a boolean',
    schema: TaskArtifactUpdateEventSchema,
    fast: fastParseArtifactUpdate,
    value: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, append: 'yes' },
  },
  {
    name: 'artifact update, artifact without parts',
    schema: TaskArtifactUpdateEventSchema,
    fast: fastParseArtifactUpdate,
    value: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a' } },
  },
  {
    name: 'send params',
    schema: OPERATIONS.SendMessage.params,
    fast: fastParseSendMessageRequest,
    value: { message: { ...msg, role: 'ROLE_USER' } },
  },
  {
    name: 'send params, every field',
    schema: OPERATIONS.SendMessage.params,
    fast: fastParseSendMessageRequest,
    value: {
      tenant: 'x',
      message: { ...msg, role: 'ROLE_USER', metadata: { skillId: 'echo' } },
      configuration: { historyLength: 0, returnImmediately: true, acceptedOutputModes: ['text/plain'] },
      metadata: { a: 1 },
      other: 2,
    },
  },
  {
    name: 'send params, negative historyLength',
    schema: OPERATIONS.SendMessage.params,
    fast: fastParseSendMessageRequest,
    value: { message: msg, configuration: { historyLength: -1 } },
  },
  { name: 'send params, no message', schema: OPERATIONS.SendMessage.params, fast: fastParseSendMessageRequest, value: { tenant: 'x' } },
  { name: 'send params, not an object', schema: OPERATIONS.SendMessage.params, fast: fastParseSendMessageRequest, value: 'nope' },
];

describe('fast validation of executor events (exactly what the zod schemas accept)', () => {
  it('checks the same fields as the a2a-types schemas, in their order', () => {
    expect(FAST_SHAPES.part.keys).toEqual(shapeKeys(PartSchema));
    expect(FAST_SHAPES.message.keys).toEqual(shapeKeys(MessageSchema));
    expect(FAST_SHAPES.taskStatus.keys).toEqual(shapeKeys(TaskStatusSchema));
    expect(FAST_SHAPES.artifact.keys).toEqual(shapeKeys(ArtifactSchema));
    expect(FAST_SHAPES.task.keys).toEqual(shapeKeys(TaskSchema));
    expect(FAST_SHAPES.statusUpdate.keys).toEqual(shapeKeys(TaskStatusUpdateEventSchema));
    expect(FAST_SHAPES.artifactUpdate.keys).toEqual(shapeKeys(TaskArtifactUpdateEventSchema));
    expect(FAST_SHAPES.sendMessageRequest.keys).toEqual(shapeKeys(OPERATIONS.SendMessage.params));
    expect(OPERATIONS.SendStreamingMessage.params).toBe(OPERATIONS.SendMessage.params);
  });

  for (const testCase of cases) {
    it(`${testCase.name}: vouches only for what zod accepts, with zod's output`, () => {
      const zod = parseWith(testCase.schema, testCase.value);
      const fast = testCase.fast(testCase.value);
      if (!zod.success) {
        expect(fast).toBeUndefined();
        return;
      }
      // The common valid shapes must take the fast path, or it saves nothing.
      if (!testCase.name.includes('undefined')) expect(fast).toBeDefined();
      if (fast !== undefined) {
        expect(fast).toStrictEqual(zod.data);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
        expect(fast).not.toBe(testCase.value);
      }
    });
  }

  it('the parsed event is a copy: mutating the published object later changes nothing', () => {
    const published = { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } };
    const parsed = toStreamResponse(published);
    published.artifact.parts[0] = { text: 'changed' };
    published.artifact.artifactId = 'b';
    expect(parsed?.artifactUpdate?.artifact).toEqual({ artifactId: 'a', parts: [{ text: 'x' }] });
  });

  it("events the fast path does not vouch for still get zod's verdict", () => {
    expect(
      toStreamResponse({ id: 't', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-02-30T03:04:05Z' } } as never),
    ).toBeUndefined();
    expect(toStreamResponse({ ...msg, contextId: undefined } as never)?.message).toBeDefined();
  });

  it("SendMessage params: the server answers invalid ones with zod's field violations", async () => {
    const { createA2AServer } = await import('../src/index.js');
    const { echoExecutor, testCard } = await import('./helpers.js');
    const server = createA2AServer({ card: testCard(), executor: echoExecutor });
    const params = { message: { ...msg, parts: [] }, configuration: { historyLength: -1 } };
    const result = await server.handle({ method: 'SendMessage', params, version: '1.0' });
    const expected = parseOperationParams('SendMessage', params);
    expect(expected.success).toBe(false);
    if (result.kind !== 'error' || expected.success) throw new Error('expected an error');
    expect(result.error.fieldViolations).toEqual(expected.error.violations);
    await server.close();
  });
});
