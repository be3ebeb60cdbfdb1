import { describe, expect, it } from 'vitest';
import {
  A2A_METHODS,
  type A2AMethod,
  type AgentCard,
  ExtendedAgentCardNotConfiguredError,
  type Part,
  TaskNotFoundError,
  VersionNotSupportedError,
  parseAgentCard,
} from '../src/index.js';
import * as v03 from '../src/v0_3/index.js';
import * as fx from './fixtures/v0_3-examples.js';

function ok<T>(result: { success: true; data: T } | { success: false; error: { message: string } }): T {
  if (!result.success) throw new Error(result.error.message);
  return result.data;
}
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('v0.3 -> v1.0 -> v0.3 is lossless for the v0.3 fixtures', () => {
  it.each([
    ['text part', fx.textPart],
    ['file part (bytes)', fx.fileBytesPart],
    ['file part (uri)', fx.fileUriPart],
    ['data part', fx.dataPart],
  ])('%s', (_name, part) => {
    expect(json(v03.partToV03(ok(v03.partFromV03(part))))).toEqual(part);
  });
  it('message', () => {
    expect(json(v03.messageToV03(ok(v03.messageFromV03(fx.message))))).toEqual(fx.message);
  });
  it('artifact', () => {
    expect(json(v03.artifactToV03(ok(v03.artifactFromV03(fx.artifact))))).toEqual(fx.artifact);
  });
  it('task', () => {
    expect(json(v03.taskToV03(ok(v03.taskFromV03(fx.task))))).toEqual(fx.task);
  });
  it('status updates whose final flag follows the state', () => {
    expect(json(v03.statusUpdateToV03(ok(v03.statusUpdateFromV03(fx.statusUpdateFinal))))).toEqual(fx.statusUpdateFinal);
    expect(json(v03.statusUpdateToV03(ok(v03.statusUpdateFromV03(fx.statusUpdateWorking))))).toEqual(fx.statusUpdateWorking);
  });
  it('artifact update', () => {
    expect(json(v03.artifactUpdateToV03(ok(v03.artifactUpdateFromV03(fx.artifactUpdate))))).toEqual(fx.artifactUpdate);
  });
  it.each([
    ['task', fx.task],
    ['message', fx.message],
    ['status-update', fx.statusUpdateFinal],
    ['artifact-update', fx.artifactUpdate],
  ])('stream event: %s', (_name, event) => {
    expect(json(v03.streamResponseToV03(ok(v03.streamEventFromV03(event))))).toEqual(event);
  });
  it('message/send result: a bare task or message', () => {
    expect(ok(v03.sendMessageResultFromV03(fx.task)).task?.id).toBe('t-1');
    expect(json(v03.sendMessageResponseToV03(ok(v03.sendMessageResultFromV03(fx.task))))).toEqual(fx.task);
    expect(json(v03.sendMessageResponseToV03(ok(v03.sendMessageResultFromV03(fx.agentMessage))))).toEqual(fx.agentMessage);
  });
  it('push notification configs', () => {
    expect(json(v03.pushConfigToV03(ok(v03.pushConfigFromV03(fx.pushNotificationConfig))))).toEqual(fx.pushNotificationConfig);
    expect(json(v03.taskPushConfigToV03(ok(v03.taskPushConfigFromV03(fx.taskPushNotificationConfig))))).toEqual(
      fx.taskPushNotificationConfig,
    );
  });
  it('agent card', () => {
    const card = ok(v03.agentCardFromV03(fx.agentCard));
    expect(json(v03.agentCardToV03(card))).toEqual(fx.agentCard);
  });
});

describe('v0.3 -> v1.0 shapes', () => {
  it('parts: file becomes raw/url with filename and mediaType', () => {
    expect(ok(v03.partFromV03(fx.fileBytesPart))).toEqual({
      raw: 'aGVsbG8=',
      filename: 'hello.txt',
      mediaType: 'text/plain',
      metadata: { src: 'upload' },
    });
    expect(ok(v03.partFromV03(fx.fileUriPart))).toEqual({ url: 'https://example.com/f.png', filename: 'f.png', mediaType: 'image/png' });
    expect(ok(v03.partFromV03(fx.textPart))).toEqual({ text: 'hello', metadata: { k: 'v' } });
  });
  it('task: states, roles and kind', () => {
    const task = ok(v03.taskFromV03(fx.task));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(task.history?.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
    expect(JSON.stringify(task)).not.toContain('"kind"');
  });
  it.each([
    ['submitted', 'TASK_STATE_SUBMITTED'],
    ['working', 'TASK_STATE_WORKING'],
    ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
    ['completed', 'TASK_STATE_COMPLETED'],
    ['canceled', 'TASK_STATE_CANCELED'],
    ['failed', 'TASK_STATE_FAILED'],
    ['rejected', 'TASK_STATE_REJECTED'],
    ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
    ['unknown', 'TASK_STATE_UNSPECIFIED'],
  ] as const)('state %s <-> %s', (old, next) => {
    expect(v03.taskStateFromV03(old)).toBe(next);
    expect(v03.taskStateToV03(next)).toBe(old);
  });
  it('agent card: url, preferredTransport and additionalInterfaces become supportedInterfaces', () => {
    const card = ok(v03.agentCardFromV03(fx.agentCard));
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://georoute-agent.example.com/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '0.3' },
      { url: 'https://georoute-agent.example.com/a2a/json', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(card.securityRequirements).toEqual([
      { schemes: { google: { list: ['openid', 'profile', 'email'] } } },
      { schemes: { key: { list: [] }, mtls: { list: [] } } },
    ]);
    expect(card.securitySchemes?.key).toEqual({
      apiKeySecurityScheme: { location: 'header', name: 'X-API-Key', description: 'api key' },
    });
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.skills[0]?.securityRequirements).toEqual([{ schemes: { oauth: { list: ['read'] } } }]);
    expect(parseAgentCard(json(card)).success).toBe(true);
  });
  it('agent card without preferredTransport defaults to JSONRPC', () => {
    const { preferredTransport: _p, additionalInterfaces: _a, ...minimal } = fx.agentCard;
    expect(ok(v03.agentCardFromV03(minimal)).supportedInterfaces).toEqual([
      { url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });
});

describe('lossy corners (docs/v0_3-compatibility.md)', () => {
  it('v1 url part -> v0.3 file part with uri', () => {
    expect(v03.partToV03({ url: 'https://x/y', mediaType: 'image/png' })).toEqual({
      kind: 'file',
      file: { uri: 'https://x/y', mimeType: 'image/png' },
    });
  });
  it('v1 data part that is not an object is wrapped as { value } with the data_part_compat flag, and unwrapped back', () => {
    const flag = { [v03.DATA_PART_COMPAT_FLAG]: true };
    expect(v03.partToV03({ data: [1, 2] })).toEqual({ kind: 'data', data: { value: [1, 2] }, metadata: flag });
    expect(v03.partToV03({ data: 'x' } as Part)).toEqual({ kind: 'data', data: { value: 'x' }, metadata: flag });
    expect(v03.partToV03({ data: null } as Part)).toEqual({ kind: 'data', data: { value: null }, metadata: flag });
    for (const part of [{ data: [1, 2] }, { data: 7, metadata: { k: 'v' } }, { data: null }, { data: false }] as Part[]) {
      expect(ok(v03.partFromV03(json(v03.partToV03(part))))).toEqual(part);
    }
    // Without the flag, a { value } object is an ordinary object.
    expect(ok(v03.partFromV03({ kind: 'data', data: { value: 1 } }))).toEqual({ data: { value: 1 } });
  });
  it('filename/mediaType of text and data parts are dropped', () => {
    expect(v03.partToV03({ text: 'a', mediaType: 'text/markdown', filename: 'a.md' })).toEqual({ kind: 'text', text: 'a' });
  });
  it('v0.3 state "unknown" has no v1 TaskStatus and is rejected at its path', () => {
    const result = v03.taskFromV03({ ...fx.task, status: { state: 'unknown' } });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.violations.map((v) => v.field)).toEqual(['status.state']);
  });
  it('final is synthesised from the state: terminal and interrupted states are final', () => {
    const event = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_FAILED') =>
      v03.statusUpdateToV03({ taskId: 't', contextId: 'c', status: { state } }).final;
    expect(event('TASK_STATE_WORKING')).toBe(false);
    expect(event('TASK_STATE_INPUT_REQUIRED')).toBe(true);
    expect(event('TASK_STATE_FAILED')).toBe(true);
    // A v0.3 final flag that disagrees with the state does not survive the trip.
    const odd = { ...fx.statusUpdateWorking, final: true };
    expect(v03.statusUpdateToV03(ok(v03.statusUpdateFromV03(odd))).final).toBe(false);
  });
  it('v0.3 timestamps with an offset are normalised to UTC', () => {
    const status = ok(v03.taskStatusFromV03({ state: 'working', timestamp: '2025-01-02T05:04:05+02:00' }));
    expect(status.timestamp).toBe('2025-01-02T03:04:05Z');
    const noZone = ok(v03.taskStatusFromV03({ state: 'working', timestamp: '2025-01-02T03:04:05.5' }));
    expect(noZone.timestamp).toBe('2025-01-02T03:04:05.500Z');
    const bad = v03.taskStatusFromV03({ state: 'working', timestamp: 'yesterday' });
    expect(bad.success ? [] : bad.error.violations.map((v) => v.field)).toEqual(['timestamp']);
  });
  it('a v1 task without contextId gets "" in v0.3', () => {
    expect(v03.taskToV03({ id: 't', status: { state: 'TASK_STATE_WORKING' } }).contextId).toBe('');
  });
  it('push auth: only the first of several v0.3 schemes survives', () => {
    const config = ok(v03.pushConfigFromV03({ url: 'https://h', authentication: { schemes: ['Bearer', 'Basic'] } }));
    expect(config.authentication).toEqual({ scheme: 'Bearer' });
  });
  it('oauth2 with several flows keeps the first; pkceRequired and device code do not reach v0.3', () => {
    const scheme = v03.securitySchemeFromV03({
      type: 'oauth2',
      flows: {
        authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} },
        clientCredentials: { tokenUrl: 'https://t', scopes: {} },
      },
    });
    expect(Object.keys(scheme.oauth2SecurityScheme?.flows ?? {})).toEqual(['authorizationCode']);
    expect(
      v03.securitySchemeToV03({
        oauth2SecurityScheme: {
          flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {}, pkceRequired: true } },
        },
      }),
    ).toEqual({ type: 'oauth2', flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: {} } } });
    expect(
      v03.securitySchemeToV03({
        oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://d', tokenUrl: 'https://t', scopes: {} } } },
      }),
    ).toEqual({ type: 'oauth2', flows: {} });
  });
  it('v0.3 card signatures and stateTransitionHistory are dropped', () => {
    const card = ok(
      v03.agentCardFromV03({
        ...fx.agentCard,
        capabilities: { ...fx.agentCard.capabilities, stateTransitionHistory: true },
        signatures: [{ protected: 'eyJ9', signature: 'c2ln' }],
      }),
    );
    expect(card.signatures).toBeUndefined();
    expect(card.capabilities).not.toHaveProperty('stateTransitionHistory');
  });
  it('v1 card -> v0.3 prefers 0.3 interfaces and drops tenant', () => {
    const v1: AgentCard = {
      name: 'a',
      description: 'd',
      version: '1',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
      supportedInterfaces: [
        { url: 'https://a/v1', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'x' },
        { url: 'https://a/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    };
    expect(v03.agentCardToV03(v1)).toEqual({
      name: 'a',
      description: 'd',
      version: '1',
      url: 'https://a/v03',
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
    const onlyV1 = v03.agentCardToV03({ ...v1, supportedInterfaces: [v1.supportedInterfaces[0]!] });
    expect(onlyV1.url).toBe('https://a/v1');
    expect(onlyV1.preferredTransport).toBe('HTTP+JSON');
    expect(onlyV1).not.toHaveProperty('additionalInterfaces');
  });
  it('v0.3 input the v1 model rejects: empty parts, empty messageId', () => {
    const empty = v03.messageFromV03({ ...fx.message, parts: [] });
    expect(empty.success ? [] : empty.error.violations.map((v) => v.field)).toEqual(['parts']);
    const noId = v03.messageFromV03({ ...fx.message, messageId: '' });
    expect(noId.success ? [] : noId.error.violations.map((v) => v.field)).toEqual(['messageId']);
  });
  it('malformed v0.3 input reports v0.3 field paths and never throws', () => {
    const result = v03.messageFromV03({ kind: 'message', messageId: 'm', role: 'bot', parts: [{ kind: 'image' }] });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.violations.map((v) => v.field).sort()).toEqual(['parts[0].kind', 'role']);
    for (const input of [null, 42, 'x', [], {}]) {
      expect(v03.taskFromV03(input).success).toBe(false);
      expect(v03.agentCardFromV03(input).success).toBe(false);
    }
  });
});

describe('method names, params and results', () => {
  const NAMES: [A2AMethod, string][] = [
    ['SendMessage', 'message/send'],
    ['SendStreamingMessage', 'message/stream'],
    ['GetTask', 'tasks/get'],
    ['ListTasks', 'tasks/list'],
    ['CancelTask', 'tasks/cancel'],
    ['SubscribeToTask', 'tasks/resubscribe'],
    ['CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set'],
    ['GetTaskPushNotificationConfig', 'tasks/pushNotificationConfig/get'],
    ['ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list'],
    ['DeleteTaskPushNotificationConfig', 'tasks/pushNotificationConfig/delete'],
    ['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard'],
  ];
  it.each(NAMES)('%s <-> %s', (method, name) => {
    expect(v03.methodToV03(method)).toBe(name);
    expect(v03.methodFromV03(name)).toBe(method);
    expect(v03.isV03Method(name)).toBe(true);
    expect(v03.V03_OPERATIONS[method].v03Method).toBe(name);
  });
  it('covers every v1 method; unknown names map to nothing', () => {
    expect(NAMES.map(([method]) => method).sort()).toEqual([...A2A_METHODS].sort());
    expect(v03.methodFromV03('SendMessage')).toBeUndefined();
    expect(v03.isV03Method('tasks/unknown')).toBe(false);
  });

  // v0.3 params -> v1 params -> v0.3 params, per operation.
  const PARAMS: [A2AMethod, unknown, unknown][] = [
    ['SendMessage', fx.messageSendParams, undefined],
    ['SendStreamingMessage', { message: fx.message }, undefined],
    ['GetTask', { id: 't-1', historyLength: 2 }, { id: 't-1', historyLength: 2 }],
    ['ListTasks', { contextId: 'c', pageSize: 5 }, { contextId: 'c', pageSize: 5 }],
    ['CancelTask', { id: 't-1', metadata: { why: 'x' } }, { id: 't-1', metadata: { why: 'x' } }],
    ['SubscribeToTask', { id: 't-1' }, { id: 't-1' }],
    [
      'CreateTaskPushNotificationConfig',
      fx.taskPushNotificationConfig,
      { taskId: 't-1', ...fx.pushNotificationConfig, authentication: { scheme: 'Bearer', credentials: 'secret' } },
    ],
    ['GetTaskPushNotificationConfig', { id: 't-1', pushNotificationConfigId: 'cfg-1' }, { taskId: 't-1', id: 'cfg-1' }],
    ['ListTaskPushNotificationConfigs', { id: 't-1' }, { taskId: 't-1' }],
    ['DeleteTaskPushNotificationConfig', { id: 't-1', pushNotificationConfigId: 'cfg-1' }, { taskId: 't-1', id: 'cfg-1' }],
    ['GetExtendedAgentCard', {}, {}],
  ];
  it.each(PARAMS)('%s params round-trip', (method, params, v1) => {
    const op = v03.V03_OPERATIONS[method] as v03.V03OperationTranslator<A2AMethod>;
    const translated = ok(op.paramsFromV03(params));
    if (v1 !== undefined) expect(translated).toEqual(v1);
    expect(json(op.paramsToV03(translated))).toEqual(params);
  });
  it('message/send: blocking <-> !returnImmediately and pushNotificationConfig', () => {
    const request = ok(v03.sendParamsFromV03(fx.messageSendParams));
    expect(request.configuration).toEqual({
      acceptedOutputModes: ['text/plain'],
      historyLength: 5,
      returnImmediately: false,
      taskPushNotificationConfig: {
        url: 'https://client.example.com/hook',
        id: 'cfg-1',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      },
    });
    expect(v03.sendParamsToV03({ message: request.message, configuration: { returnImmediately: true } }).configuration).toEqual({
      blocking: false,
    });
  });
  it('lossy params: tasks/get metadata and resubscribe metadata are dropped; get without config id uses the task id', () => {
    expect(ok(v03.V03_OPERATIONS.GetTask.paramsFromV03({ id: 't', metadata: { a: 1 } }))).toEqual({ id: 't' });
    expect(ok(v03.V03_OPERATIONS.SubscribeToTask.paramsFromV03({ id: 't', metadata: { a: 1 } }))).toEqual({ id: 't' });
    expect(ok(v03.V03_OPERATIONS.GetTaskPushNotificationConfig.paramsFromV03({ id: 't' }))).toEqual({ taskId: 't', id: 't' });
    expect(v03.sendParamsToV03({ tenant: 'x', message: ok(v03.messageFromV03(fx.message)) })).not.toHaveProperty('tenant');
  });

  it('results round-trip per operation', () => {
    const ops = v03.V03_OPERATIONS;
    expect(json(ops.SendMessage.resultToV03(ok(ops.SendMessage.resultFromV03(fx.task))))).toEqual(fx.task);
    expect(json(ops.SendStreamingMessage.resultToV03(ok(ops.SendStreamingMessage.resultFromV03(fx.artifactUpdate))))).toEqual(
      fx.artifactUpdate,
    );
    expect(json(ops.GetTask.resultToV03(ok(ops.GetTask.resultFromV03(fx.task))))).toEqual(fx.task);
    expect(json(ops.CancelTask.resultToV03(ok(ops.CancelTask.resultFromV03(fx.task))))).toEqual(fx.task);
    expect(json(ops.SubscribeToTask.resultToV03(ok(ops.SubscribeToTask.resultFromV03(fx.statusUpdateFinal))))).toEqual(
      fx.statusUpdateFinal,
    );
    const list = ok(ops.ListTasks.resultFromV03([fx.task]));
    expect(list).toMatchObject({ nextPageToken: '', pageSize: 1, totalSize: 1 });
    expect(json(ops.ListTasks.resultToV03(list))).toEqual([fx.task]);
    for (const op of [ops.CreateTaskPushNotificationConfig, ops.GetTaskPushNotificationConfig]) {
      expect(json(op.resultToV03(ok(op.resultFromV03(fx.taskPushNotificationConfig))))).toEqual(fx.taskPushNotificationConfig);
    }
    const configs = ok(ops.ListTaskPushNotificationConfigs.resultFromV03([fx.taskPushNotificationConfig]));
    expect(json(ops.ListTaskPushNotificationConfigs.resultToV03(configs))).toEqual([fx.taskPushNotificationConfig]);
    expect(ok(ops.DeleteTaskPushNotificationConfig.resultFromV03(null))).toEqual({});
    expect(ops.DeleteTaskPushNotificationConfig.resultToV03({})).toBeNull();
    expect(json(ops.GetExtendedAgentCard.resultToV03(ok(ops.GetExtendedAgentCard.resultFromV03(fx.agentCard))))).toEqual(fx.agentCard);
  });
});

describe('classifyV03JsonRpcRequest', () => {
  it('turns a v0.3 message/send into a v1 SendMessage', () => {
    const outcome = v03.classifyV03JsonRpcRequest(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: fx.messageSendParams }),
    );
    expect(outcome.kind).toBe('request');
    if (outcome.kind !== 'request' || outcome.method !== 'SendMessage') throw new Error('expected SendMessage');
    expect(outcome.params.message.role).toBe('ROLE_USER');
  });
  it('reports unknown methods, invalid params and envelope errors', () => {
    const unknown = v03.classifyV03JsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} });
    expect(unknown.kind === 'error' && unknown.error.code).toBe(-32601);
    const invalid = v03.classifyV03JsonRpcRequest({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { historyLength: 1 } });
    expect(invalid.kind === 'error' && invalid.error.code).toBe(-32602);
    expect(invalid.kind === 'error' && invalid.error.fieldViolations.map((v) => v.field)).toEqual(['id']);
    const arrayParams = v03.classifyV03JsonRpcRequest({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: [] });
    expect(arrayParams.kind === 'error' && arrayParams.error.code).toBe(-32602);
    expect(v03.classifyV03JsonRpcRequest('{').kind).toBe('error');
    expect(v03.classifyV03JsonRpcRequest({ jsonrpc: '2.0', method: 'tasks/get' }).kind).toBe('notification');
    const card = v03.classifyV03JsonRpcRequest({ jsonrpc: '2.0', id: 4, method: 'agent/getAuthenticatedExtendedCard' });
    expect(card).toEqual({ kind: 'request', id: 4, method: 'GetExtendedAgentCard', params: {} });
  });
});

describe('errors', () => {
  it('v0.3 codes -32001..-32007 map to the same classes', () => {
    expect(v03.V03_ERROR_CODES.TaskNotFoundError).toBe(new TaskNotFoundError().code);
    expect(v03.V03_ERROR_CODES.AuthenticatedExtendedCardNotConfiguredError).toBe(new ExtendedAgentCardNotConfiguredError().code);
    const fromOld = v03.errorFromV03({ code: -32007, message: 'Authenticated Extended Card is not configured', data: { any: 1 } });
    expect(ExtendedAgentCardNotConfiguredError.isInstance(fromOld)).toBe(true);
    expect(fromOld.message).toBe('Authenticated Extended Card is not configured');
  });
  it('v0.3 error objects validate with V03JsonRpcErrorSchema', () => {
    expect(v03.V03JsonRpcErrorSchema.safeParse({ code: -32001, message: 'Task not found', data: 'anything' }).success).toBe(true);
    expect(v03.V03JsonRpcErrorSchema.safeParse({ code: 'x', message: 'm' }).success).toBe(false);
    expect(v03.V03JsonRpcErrorSchema.safeParse(v03.errorToV03(new TaskNotFoundError())).success).toBe(true);
  });
  it('round trip keeps class and metadata; v1-only codes keep their code', () => {
    const back = v03.errorFromV03(json(v03.errorToV03(new TaskNotFoundError({ metadata: { taskId: 't' } }))) as { code: number });
    expect(TaskNotFoundError.isInstance(back)).toBe(true);
    expect(back.metadata).toEqual({ taskId: 't' });
    expect(v03.errorToV03(new VersionNotSupportedError()).code).toBe(-32009);
  });
});
