import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as a2a from '../src/index.js';
import * as fx from './fixtures/objects.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function expectRoundTrip(schema: z.core.$ZodType, input: unknown): void {
  const result = a2a.parseWith(schema, input);
  if (!result.success) throw new Error(result.error.message);
  expect(roundTrip(result.data)).toEqual(input);
}

function fieldsOf(schema: z.core.$ZodType, input: unknown): string[] {
  const result = a2a.parseWith(schema, input);
  if (result.success) throw new Error('expected a validation failure');
  return result.error.violations.map((v) => v.field);
}

describe('round trip: parse -> JSON.stringify -> JSON.parse equals the input', () => {
  const cases: [string, z.core.$ZodType, unknown][] = [
    ['Part (text)', a2a.PartSchema, fx.textPart],
    ['Part (raw)', a2a.PartSchema, fx.rawPart],
    ['Part (url)', a2a.PartSchema, fx.urlPart],
    ['Part (data object)', a2a.PartSchema, fx.dataPart],
    ['Part (data scalar)', a2a.PartSchema, fx.dataPartScalar],
    ['Part (data null-free array)', a2a.PartSchema, { data: [1, 2, 3] }],
    ['Message', a2a.MessageSchema, fx.message],
    ['TaskStatus', a2a.TaskStatusSchema, fx.taskStatus],
    ['Artifact', a2a.ArtifactSchema, fx.artifact],
    ['Task', a2a.TaskSchema, fx.task],
    ['TaskStatusUpdateEvent', a2a.TaskStatusUpdateEventSchema, fx.statusUpdate],
    ['TaskArtifactUpdateEvent', a2a.TaskArtifactUpdateEventSchema, fx.artifactUpdate],
    ['StreamResponse (task)', a2a.StreamResponseSchema, { task: fx.task }],
    ['StreamResponse (message)', a2a.StreamResponseSchema, { message: fx.message }],
    ['StreamResponse (statusUpdate)', a2a.StreamResponseSchema, { statusUpdate: fx.statusUpdate }],
    ['StreamResponse (artifactUpdate)', a2a.StreamResponseSchema, { artifactUpdate: fx.artifactUpdate }],
    ['SendMessageConfiguration', a2a.SendMessageConfigurationSchema, fx.sendMessageConfiguration],
    ['SendMessageRequest', a2a.SendMessageRequestSchema, fx.sendMessageRequest],
    ['SendMessageResponse (task)', a2a.SendMessageResponseSchema, { task: fx.task }],
    ['SendMessageResponse (message)', a2a.SendMessageResponseSchema, { message: fx.message }],
    ['GetTaskRequest', a2a.GetTaskRequestSchema, { tenant: 'acme', id: 't-1', historyLength: 0 }],
    [
      'ListTasksRequest',
      a2a.ListTasksRequestSchema,
      {
        tenant: 'acme',
        contextId: 'ctx',
        status: 'TASK_STATE_WORKING',
        pageSize: 50,
        pageToken: 'p',
        historyLength: 2,
        statusTimestampAfter: '2025-01-01T00:00:00Z',
        includeArtifacts: true,
      },
    ],
    ['ListTasksResponse', a2a.ListTasksResponseSchema, { tasks: [fx.task], nextPageToken: 'n', pageSize: 1, totalSize: 9 }],
    ['CancelTaskRequest', a2a.CancelTaskRequestSchema, { tenant: 'acme', id: 't-1', metadata: { why: 'x' } }],
    ['SubscribeToTaskRequest', a2a.SubscribeToTaskRequestSchema, { tenant: 'acme', id: 't-1' }],
    ['AuthenticationInfo', a2a.AuthenticationInfoSchema, fx.authenticationInfo],
    ['TaskPushNotificationConfig', a2a.TaskPushNotificationConfigSchema, fx.pushConfig],
    ['CreateTaskPushNotificationConfigRequest', a2a.CreateTaskPushNotificationConfigRequestSchema, fx.pushConfig],
    ['GetTaskPushNotificationConfigRequest', a2a.GetTaskPushNotificationConfigRequestSchema, { tenant: 'a', taskId: 't', id: 'c' }],
    ['DeleteTaskPushNotificationConfigRequest', a2a.DeleteTaskPushNotificationConfigRequestSchema, { taskId: 't', id: 'c' }],
    [
      'ListTaskPushNotificationConfigsRequest',
      a2a.ListTaskPushNotificationConfigsRequestSchema,
      { tenant: 'a', taskId: 't', pageSize: 10, pageToken: 'p' },
    ],
    [
      'ListTaskPushNotificationConfigsResponse',
      a2a.ListTaskPushNotificationConfigsResponseSchema,
      { configs: [fx.pushConfig], nextPageToken: '' },
    ],
    ['GetExtendedAgentCardRequest', a2a.GetExtendedAgentCardRequestSchema, { tenant: 'acme' }],
    ['Empty', a2a.EmptySchema, {}],
    ['AgentInterface', a2a.AgentInterfaceSchema, fx.agentInterface],
    ['AgentProvider', a2a.AgentProviderSchema, fx.agentProvider],
    ['AgentExtension', a2a.AgentExtensionSchema, fx.agentExtension],
    ['AgentCapabilities', a2a.AgentCapabilitiesSchema, fx.agentCapabilities],
    ['AgentSkill', a2a.AgentSkillSchema, fx.agentSkill],
    ['AgentCardSignature', a2a.AgentCardSignatureSchema, fx.agentCardSignature],
    ['AgentCard (every field)', a2a.AgentCardSchema, fx.agentCard],
    ['AgentCard (minimal)', a2a.AgentCardSchema, fx.minimalAgentCard],
    ['SecurityRequirement', a2a.SecurityRequirementSchema, fx.securityRequirement],
    ['SecurityRequirement (empty)', a2a.SecurityRequirementSchema, {}],
    ...Object.entries(fx.securitySchemes).map(
      ([name, scheme]) => [`SecurityScheme (${name})`, a2a.SecuritySchemeSchema, scheme] as [string, z.core.$ZodType, unknown],
    ),
    ...Object.entries(fx.oauthFlows).map(
      ([name, flow]) => [`OAuthFlows (${name})`, a2a.OAuthFlowsSchema, { [name]: flow }] as [string, z.core.$ZodType, unknown],
    ),
  ];
  it.each(cases)('%s', (_name, schema, input) => {
    expectRoundTrip(schema, input);
  });

  it('every SecurityScheme kind is covered', () => {
    const kinds = Object.values(fx.securitySchemes).map((scheme) => Object.keys(scheme)[0]);
    expect(kinds.sort()).toEqual(
      [
        'apiKeySecurityScheme',
        'httpAuthSecurityScheme',
        'mtlsSecurityScheme',
        'oauth2SecurityScheme',
        'openIdConnectSecurityScheme',
      ].sort(),
    );
  });

  it('the named parsers agree with the schemas', () => {
    expect(a2a.parseTask(fx.task).success).toBe(true);
    expect(a2a.parseMessage(fx.message).success).toBe(true);
    expect(a2a.parsePart(fx.textPart).success).toBe(true);
    expect(a2a.parseArtifact(fx.artifact).success).toBe(true);
    expect(a2a.parseAgentCard(fx.agentCard).success).toBe(true);
    expect(a2a.parseStreamResponse({ task: fx.task }).success).toBe(true);
    expect(a2a.parseSendMessageRequest(fx.sendMessageRequest).success).toBe(true);
    expect(a2a.parseSendMessageResponse({ message: fx.message }).success).toBe(true);
    expect(a2a.parseTaskPushNotificationConfig(fx.pushConfig).success).toBe(true);
    expect(a2a.parseTask(null).success).toBe(false);
  });

  it('partKind names the content field', () => {
    expect([fx.textPart, fx.rawPart, fx.urlPart, fx.dataPart].map((p) => a2a.partKind(p as a2a.Part))).toEqual([
      'text',
      'raw',
      'url',
      'data',
    ]);
  });
});

describe('rejections report the exact field path', () => {
  it('Part with zero content fields', () => {
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, parts: [{ mediaType: 'text/plain' }] })).toEqual(['parts[0]']);
  });
  it('Part with two content fields', () => {
    const result = a2a.parseWith(a2a.MessageSchema, { ...fx.message, parts: [{ text: 'a' }, { text: 'a', url: 'https://x' }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.violations).toEqual([
      { field: 'parts[1]', description: 'exactly one of text, raw, url, data is allowed; got text, url' },
    ]);
  });
  // `data` is a google.protobuf.Value, for which JSON null is a value (NULL_VALUE), not absence.
  it('data: null is a data part holding the null value', () => {
    expectRoundTrip(a2a.PartSchema, { data: null });
    expect(fieldsOf(a2a.PartSchema, { text: 'x', data: null })).toEqual(['']);
  });
  it('wrong enum strings', () => {
    expect(fieldsOf(a2a.TaskSchema, { ...fx.task, status: { state: 'completed' } })).toEqual(['status.state']);
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, role: 'ROLE_BOT' })).toEqual(['role']);
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, role: 'ROLE_UNSPECIFIED' })).toEqual(['role']);
    expect(fieldsOf(a2a.TaskStatusSchema, { state: 'TASK_STATE_UNSPECIFIED' })).toEqual(['state']);
  });
  it('missing required fields', () => {
    const { messageId: _id, ...noId } = fx.message;
    expect(fieldsOf(a2a.SendMessageRequestSchema, { message: noId })).toEqual(['message.messageId']);
    const { parts: _parts, ...noParts } = fx.message;
    expect(fieldsOf(a2a.SendMessageRequestSchema, { message: noParts })).toEqual(['message.parts']);
    const { status: _status, ...noStatus } = fx.task;
    expect(fieldsOf(a2a.TaskSchema, noStatus)).toEqual(['status']);
    const { supportedInterfaces: _si, ...noInterfaces } = fx.agentCard;
    expect(fieldsOf(a2a.AgentCardSchema, noInterfaces)).toEqual(['supportedInterfaces']);
    expect(fieldsOf(a2a.SendMessageRequestSchema, {})).toEqual(['message']);
    expect(fieldsOf(a2a.TaskStatusUpdateEventSchema, { taskId: 't', contextId: 'c' })).toEqual(['status']);
  });
  it('empty parts and empty supportedInterfaces', () => {
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, parts: [] })).toEqual(['parts']);
    expect(fieldsOf(a2a.ArtifactSchema, { ...fx.artifact, parts: [] })).toEqual(['parts']);
    expect(fieldsOf(a2a.AgentCardSchema, { ...fx.agentCard, supportedInterfaces: [] })).toEqual(['supportedInterfaces']);
  });
  it('other required arrays may be empty, and must be arrays when present', () => {
    expect(a2a.parseAgentCard({ ...fx.minimalAgentCard, skills: [] }).success).toBe(true);
    expect(fieldsOf(a2a.AgentCardSchema, { ...fx.minimalAgentCard, skills: {} })).toEqual(['skills']);
    expect(fieldsOf(a2a.AgentCardSchema, { ...fx.minimalAgentCard, defaultInputModes: null })).toEqual(['defaultInputModes']);
  });
  it('empty ids', () => {
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, messageId: '' })).toEqual(['messageId']);
    expect(fieldsOf(a2a.GetTaskRequestSchema, { id: '' })).toEqual(['id']);
  });
  it('non-object metadata', () => {
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, metadata: [1, 2] })).toEqual(['metadata']);
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, metadata: 'x' })).toEqual(['metadata']);
    expect(fieldsOf(a2a.TaskSchema, { ...fx.task, metadata: null })).toEqual(['metadata']);
    expect(fieldsOf(a2a.MessageSchema, { ...fx.message, parts: [{ text: 'a', metadata: 3 }] })).toEqual(['parts[0].metadata']);
  });
  it.each([
    ['no zone', '2025-01-02T03:04:05'],
    ['offset without colon', '2025-01-02T03:04:05+0200'],
    ['garbage', 'yesterday'],
    ['date only', '2025-01-02'],
  ])('malformed timestamp (%s)', (_name, timestamp) => {
    expect(fieldsOf(a2a.TaskSchema, { ...fx.task, status: { state: 'TASK_STATE_WORKING', timestamp } })).toEqual(['status.timestamp']);
    expect(fieldsOf(a2a.ListTasksRequestSchema, { statusTimestampAfter: timestamp })).toEqual(['statusTimestampAfter']);
  });
  it('accepts timestamps with and without fractional seconds', () => {
    for (const timestamp of ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05.1Z', '2025-01-02T03:04:05.123456789Z']) {
      expect(a2a.parseWith(a2a.TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp }).success).toBe(true);
    }
  });
  it.each([
    ['2025-01-02T03:04:05+02:00', '2025-01-02T01:04:05Z'],
    ['2025-01-02T03:04:05.123456-05:30', '2025-01-02T08:34:05.123456Z'],
    ['2025-01-01T23:30:00-01:00', '2025-01-02T00:30:00Z'],
    ['2025-01-02T03:04:05+00:00', '2025-01-02T03:04:05Z'],
    ['2025-01-02T03:04:05.5Z', '2025-01-02T03:04:05.5Z'],
  ])('parses the RFC 3339 offset of %s and normalizes it to %s', (input, utc) => {
    const status = a2a.parseWith(a2a.TaskStatusSchema, { state: 'TASK_STATE_WORKING', timestamp: input });
    expect(status.success && status.data.timestamp).toBe(utc);
    const list = a2a.parseWith(a2a.ListTasksRequestSchema, { statusTimestampAfter: input });
    expect(list.success && list.data.statusTimestampAfter).toBe(utc);
  });
  it('bad base64 in raw', () => {
    for (const raw of ['not base64!', 'abc$', 'a', 'ab=c']) {
      expect(fieldsOf(a2a.MessageSchema, { ...fx.message, parts: [{ raw }] })).toEqual(['parts[0].raw']);
    }
    for (const raw of ['', 'aGk=', 'aGk', 'a-_b', 'YWJj']) {
      expect(a2a.parseWith(a2a.PartSchema, { raw }).success).toBe(true);
    }
  });
  it('pageSize 0 and 101, negative historyLength', () => {
    expect(fieldsOf(a2a.ListTasksRequestSchema, { pageSize: 0 })).toEqual(['pageSize']);
    expect(fieldsOf(a2a.ListTasksRequestSchema, { pageSize: 101 })).toEqual(['pageSize']);
    expect(fieldsOf(a2a.ListTasksRequestSchema, { pageSize: 1.5 })).toEqual(['pageSize']);
    expect(a2a.parseWith(a2a.ListTasksRequestSchema, { pageSize: 1 }).success).toBe(true);
    expect(a2a.parseWith(a2a.ListTasksRequestSchema, { pageSize: 100 }).success).toBe(true);
    expect(fieldsOf(a2a.GetTaskRequestSchema, { id: 't', historyLength: -1 })).toEqual(['historyLength']);
    expect(fieldsOf(a2a.ListTasksRequestSchema, { historyLength: -5 })).toEqual(['historyLength']);
    expect(fieldsOf(a2a.SendMessageRequestSchema, { message: fx.message, configuration: { historyLength: -1 } })).toEqual([
      'configuration.historyLength',
    ]);
  });
  it('reports every violation, not only the first', () => {
    const result = a2a.parseWith(a2a.MessageSchema, { role: 'ROLE_BOT', parts: [] }, 'params.message');
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.violations.map((v) => v.field).sort()).toEqual(
      ['params.message.messageId', 'params.message.parts', 'params.message.role'].sort(),
    );
    const badRequest = result.error.toBadRequest();
    expect(badRequest['@type']).toBe(a2a.BAD_REQUEST_TYPE);
    expect(badRequest.fieldViolations).toHaveLength(3);
    expect(result.error.message).toContain('params.message.role');
  });
  it('SendMessageResponse and StreamResponse must hold exactly one payload', () => {
    expect(fieldsOf(a2a.SendMessageResponseSchema, {})).toEqual(['']);
    expect(fieldsOf(a2a.SendMessageResponseSchema, { task: fx.task, message: fx.message })).toEqual(['']);
    expect(fieldsOf(a2a.StreamResponseSchema, { statusUpdate: fx.statusUpdate, artifactUpdate: fx.artifactUpdate })).toEqual(['']);
    expect(fieldsOf(a2a.SecuritySchemeSchema, {})).toEqual(['']);
    expect(fieldsOf(a2a.OAuthFlowsSchema, { implicit: {}, password: {} })).toEqual(['']);
  });
});

describe('unknown fields are ignored on input and never emitted', () => {
  it('drops unknown fields at every level', () => {
    const input = {
      ...fx.task,
      kind: 'task',
      status: { ...fx.taskStatus, extra: 1 },
      artifacts: [{ ...fx.artifact, parts: [{ text: 'x', kind: 'text' }], bogus: true }],
      history: [{ ...fx.message, kind: 'message' }],
    };
    const result = a2a.parseTask(input);
    expect(result.success).toBe(true);
    if (!result.success) return;
    const json = JSON.stringify(result.data);
    expect(json).not.toContain('"kind"');
    expect(json).not.toContain('"extra"');
    expect(json).not.toContain('"bogus"');
    expect(result.data.artifacts?.[0]?.parts[0]).toEqual({ text: 'x' });
  });
  it('keeps unknown keys inside Struct values (metadata, data) untouched', () => {
    const result = a2a.parseMessage({ ...fx.message, metadata: { anything: { nested: [1] } } });
    expect(result.success && result.data.metadata).toEqual({ anything: { nested: [1] } });
  });
});

describe('ProtoJSON default values', () => {
  it('ListTasksResponse scalars omitted by a ProtoJSON writer read as their defaults', () => {
    expect(a2a.parseWith(a2a.ListTasksResponseSchema, { tasks: [] })).toEqual({
      success: true,
      data: { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 },
    });
    expect(fieldsOf(a2a.ListTasksResponseSchema, { tasks: null })).toEqual(['tasks']);
  });
  // spec §5.7 / ProtoJSON: repeated fields have no presence, so proto writers omit empty ones.
  it('an empty ListTasksResponse from a ProtoJSON writer ({}) reads as an empty page', () => {
    expect(a2a.parseWith(a2a.ListTasksResponseSchema, {})).toEqual({
      success: true,
      data: { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 },
    });
  });
  it('ListTasksResponse defaults are fresh arrays, not one shared instance', () => {
    const first = a2a.parseWith(a2a.ListTasksResponseSchema, {});
    const second = a2a.parseWith(a2a.ListTasksResponseSchema, {});
    if (!first.success || !second.success) throw new Error('expected both to parse');
    first.data.tasks.push({ id: 't', status: { state: 'TASK_STATE_WORKING' } });
    expect(second.data.tasks).toEqual([]);
  });
  it('an AgentCard without skills, defaultInputModes and defaultOutputModes reads them as []', () => {
    const { skills: _s, defaultInputModes: _i, defaultOutputModes: _o, ...card } = fx.minimalAgentCard;
    const parsed = a2a.parseAgentCard(card);
    if (!parsed.success) throw new Error(parsed.error.message);
    expect(parsed.data.skills).toEqual([]);
    expect(parsed.data.defaultInputModes).toEqual([]);
    expect(parsed.data.defaultOutputModes).toEqual([]);
  });
  it('an AgentSkill without tags reads them as []', () => {
    const parsed = a2a.parseWith(a2a.AgentSkillSchema, { id: 'echo', name: 'Echo', description: 'Echoes' });
    expect(parsed).toEqual({ success: true, data: { id: 'echo', name: 'Echo', description: 'Echoes', tags: [] } });
    const card = { ...fx.minimalAgentCard, skills: [{ id: 'echo', name: 'Echo', description: 'Echoes' }] };
    const parsedCard = a2a.parseAgentCard(card);
    expect(parsedCard.success && parsedCard.data.skills[0]?.tags).toEqual([]);
  });
  it('present repeated fields are kept as sent', () => {
    const parsed = a2a.parseWith(a2a.ListTasksResponseSchema, { tasks: [fx.task], nextPageToken: 'n', pageSize: 1, totalSize: 3 });
    expect(parsed.success && parsed.data.tasks).toEqual([fx.task]);
  });
});

describe('task state helpers', () => {
  it('terminal and interrupted states (spec §4.1.3)', () => {
    expect([...a2a.TERMINAL_TASK_STATES].sort()).toEqual(
      ['TASK_STATE_CANCELED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED'].sort(),
    );
    expect(a2a.isTerminalTaskState('TASK_STATE_WORKING')).toBe(false);
    expect(a2a.isInterruptedTaskState('TASK_STATE_AUTH_REQUIRED')).toBe(true);
    expect(a2a.isInterruptedTaskState('TASK_STATE_COMPLETED')).toBe(false);
  });
});

describe('violation messages', () => {
  // zod/mini has no messages of its own; the English locale is loaded with the schemas.
  it('read as English sentences, not a bare "Invalid input"', () => {
    const result = a2a.parseTask({ id: 7, status: { state: 'TASK_STATE_NOPE' } });
    if (result.success) throw new Error('expected a validation failure');
    expect(result.error.violations).toEqual([
      { field: 'id', description: 'Invalid input: expected string, received number' },
      { field: 'status.state', description: expect.stringMatching(/^Invalid option: expected one of "TASK_STATE_SUBMITTED"\|/) },
    ]);
  });
});
