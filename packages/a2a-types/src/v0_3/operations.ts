import * as z from 'zod/mini';
import type { A2AError } from '../errors/a2a-error.js';
import { InvalidParamsError, MethodNotFoundError } from '../errors/classes.js';
import { fromJsonRpcError } from '../errors/convert.js';
import { type ClassifiedRequest, type EnvelopeOptions, type JsonRpcErrorObject, readJsonRpcEnvelope } from '../json-rpc.js';
import * as m from '../model/index.js';
import { A2A_METHODS, type A2AMethod, type A2ARequestMap, type A2AResultMap } from '../operations.js';
import { type ParseResult, parseWith } from '../validation.js';
import { agentCardFromV03Value, agentCardToV03 } from './agent-card.js';
import { withOptional } from './optional.js';
import * as s from './schemas.js';
import * as t from './translate.js';

/** JSON-RPC method names of v0.3, by the v1.0 operation they map to (v0.3 spec §7, §3.5.6). */
export const V03_METHOD_NAMES = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  // v0.3 only had ListTasks over gRPC/REST; the name follows the v0.3 method naming.
  ListTasks: 'tasks/list',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
} as const satisfies { readonly [M in A2AMethod]: string };
export type V03Method = (typeof V03_METHOD_NAMES)[A2AMethod];

const BY_V03_NAME = new Map<string, A2AMethod>(A2A_METHODS.map((method) => [V03_METHOD_NAMES[method], method]));

/** The v1.0 operation of a v0.3 method name, or `undefined`. */
export const methodFromV03 = (name: string): A2AMethod | undefined => BY_V03_NAME.get(name);
/** The v0.3 method name of a v1.0 operation. */
export const methodToV03 = <M extends A2AMethod>(method: M): (typeof V03_METHOD_NAMES)[M] => V03_METHOD_NAMES[method];
export const isV03Method = (value: unknown): value is V03Method => typeof value === 'string' && BY_V03_NAME.has(value);

/** Params type of each operation in v0.3. */
export interface V03RequestMap {
  SendMessage: s.V03MessageSendParams;
  SendStreamingMessage: s.V03MessageSendParams;
  GetTask: s.V03TaskQueryParams;
  ListTasks: Record<string, unknown>;
  CancelTask: s.V03TaskIdParams;
  SubscribeToTask: s.V03TaskIdParams;
  CreateTaskPushNotificationConfig: s.V03TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: s.V03GetTaskPushNotificationConfigParams;
  ListTaskPushNotificationConfigs: s.V03ListTaskPushNotificationConfigParams;
  DeleteTaskPushNotificationConfig: s.V03DeleteTaskPushNotificationConfigParams;
  GetExtendedAgentCard: Record<string, never>;
}

/** Result type of each operation in v0.3 (one event for the streaming ones). */
export interface V03ResultMap {
  SendMessage: s.V03SendMessageResult;
  SendStreamingMessage: s.V03StreamEvent;
  GetTask: s.V03Task;
  ListTasks: s.V03Task[];
  CancelTask: s.V03Task;
  SubscribeToTask: s.V03StreamEvent;
  CreateTaskPushNotificationConfig: s.V03TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: s.V03TaskPushNotificationConfig;
  ListTaskPushNotificationConfigs: s.V03TaskPushNotificationConfig[];
  DeleteTaskPushNotificationConfig: null;
  GetExtendedAgentCard: s.V03AgentCard;
}

/** How one operation crosses between v0.3 and v1.0. `*FromV03` validate untrusted input and never throw. */
export interface V03OperationTranslator<M extends A2AMethod> {
  method: M;
  v03Method: (typeof V03_METHOD_NAMES)[M];
  paramsFromV03(params: unknown): ParseResult<A2ARequestMap[M]>;
  paramsToV03(params: A2ARequestMap[M]): V03RequestMap[M];
  resultFromV03(result: unknown): ParseResult<A2AResultMap[M]>;
  resultToV03(result: A2AResultMap[M]): V03ResultMap[M];
}

const from = t.translateFromV03;

// ---- send ----

/** v0.3 `blocking` is the negation of v1.0 `returnImmediately`; both are optional. */
function sendParamsFromV03Value(params: s.V03MessageSendParams): m.SendMessageRequest {
  const config = params.configuration;
  const configuration =
    config &&
    withOptional(
      {},
      {
        acceptedOutputModes: config.acceptedOutputModes,
        taskPushNotificationConfig: config.pushNotificationConfig && t.pushConfigFromV03Value(config.pushNotificationConfig),
        historyLength: config.historyLength,
        returnImmediately: config.blocking === undefined ? undefined : !config.blocking,
      },
    );
  return withOptional({ message: t.messageFromV03Value(params.message) }, { configuration, metadata: params.metadata });
}

/** Lossy: `tenant` is dropped. */
function sendParamsToV03(params: m.SendMessageRequest): s.V03MessageSendParams {
  const config = params.configuration;
  const configuration =
    config &&
    withOptional(
      {},
      {
        acceptedOutputModes: config.acceptedOutputModes,
        pushNotificationConfig: config.taskPushNotificationConfig && t.pushConfigToV03(config.taskPushNotificationConfig),
        historyLength: config.historyLength,
        blocking: config.returnImmediately === undefined ? undefined : !config.returnImmediately,
      },
    );
  return withOptional({ message: t.messageToV03(params.message) }, { configuration, metadata: params.metadata });
}

export const sendParamsFromV03 = (params: unknown): ParseResult<m.SendMessageRequest> =>
  from(s.V03MessageSendParamsSchema, m.SendMessageRequestSchema, sendParamsFromV03Value, params);
export { sendParamsToV03 };

const sendOperation = <M extends 'SendMessage' | 'SendStreamingMessage'>(
  method: M,
  resultFromV03: (result: unknown) => ParseResult<A2AResultMap[M]>,
  resultToV03: (result: A2AResultMap[M]) => V03ResultMap[M],
): V03OperationTranslator<M> => ({
  method,
  v03Method: V03_METHOD_NAMES[method],
  paramsFromV03: sendParamsFromV03,
  paramsToV03: sendParamsToV03,
  resultFromV03,
  resultToV03,
});

const streamEventFromV03 = (event: unknown): ParseResult<m.StreamResponse> =>
  from(s.V03StreamEventSchema, m.StreamResponseSchema, t.streamEventFromV03Value, event);
const taskFromV03 = (task: unknown): ParseResult<m.Task> => from(s.V03TaskSchema, m.TaskSchema, t.taskFromV03Value, task);
const taskPushConfigFromV03 = (config: unknown): ParseResult<m.TaskPushNotificationConfig> =>
  from(s.V03TaskPushNotificationConfigSchema, m.TaskPushNotificationConfigSchema, t.taskPushConfigFromV03Value, config);

const subscribeLike = <M extends 'SubscribeToTask' | 'CancelTask'>(
  method: M,
  schema: z.ZodMiniType<A2ARequestMap[M], unknown>,
  keepMetadata: boolean,
  resultFromV03: (result: unknown) => ParseResult<A2AResultMap[M]>,
  resultToV03: (result: A2AResultMap[M]) => V03ResultMap[M],
): V03OperationTranslator<M> => ({
  method,
  v03Method: V03_METHOD_NAMES[method],
  paramsFromV03: (params) =>
    from(s.V03TaskIdParamsSchema, schema, (p) => withOptional({ id: p.id }, { metadata: keepMetadata ? p.metadata : undefined }), params),
  paramsToV03: (params) =>
    withOptional({ id: params.id }, { metadata: 'metadata' in params ? params.metadata : undefined }) as V03RequestMap[M],
  resultFromV03,
  resultToV03,
});

const ListTasksResultV03Schema = z.array(s.V03TaskSchema);
const ListPushConfigsResultV03Schema = z.array(s.V03TaskPushNotificationConfigSchema);

/** Every operation's v0.3 translator, keyed by v1.0 method. */
export const V03_OPERATIONS: { readonly [M in A2AMethod]: V03OperationTranslator<M> } = {
  SendMessage: sendOperation(
    'SendMessage',
    (result) => from(s.V03SendMessageResultSchema, m.SendMessageResponseSchema, t.sendMessageResultFromV03Value, result),
    t.sendMessageResponseToV03,
  ),
  SendStreamingMessage: sendOperation('SendStreamingMessage', streamEventFromV03, t.streamResponseToV03),
  GetTask: {
    method: 'GetTask',
    v03Method: V03_METHOD_NAMES.GetTask,
    // Lossy: v0.3 `metadata` has no place in GetTaskRequest.
    paramsFromV03: (params) =>
      from(
        s.V03TaskQueryParamsSchema,
        m.GetTaskRequestSchema,
        (p) => withOptional({ id: p.id }, { historyLength: p.historyLength }),
        params,
      ),
    paramsToV03: (params) => withOptional({ id: params.id }, { historyLength: params.historyLength }),
    resultFromV03: taskFromV03,
    resultToV03: t.taskToV03,
  },
  ListTasks: {
    method: 'ListTasks',
    v03Method: V03_METHOD_NAMES.ListTasks,
    // v0.3 defined no list params over JSON-RPC; the v1.0 fields pass through as they are.
    paramsFromV03: (params) => parseWith(m.ListTasksRequestSchema, params ?? {}),
    paramsToV03: (params) => ({ ...params }),
    // v0.3 answered with a bare array: no pagination.
    resultFromV03: (result) =>
      from(
        ListTasksResultV03Schema,
        m.ListTasksResponseSchema,
        (tasks) => ({ tasks: tasks.map(t.taskFromV03Value), nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length }),
        result,
      ),
    resultToV03: (result) => result.tasks.map(t.taskToV03),
  },
  CancelTask: subscribeLike('CancelTask', m.CancelTaskRequestSchema, true, taskFromV03, t.taskToV03),
  SubscribeToTask: subscribeLike('SubscribeToTask', m.SubscribeToTaskRequestSchema, false, streamEventFromV03, t.streamResponseToV03),
  CreateTaskPushNotificationConfig: {
    method: 'CreateTaskPushNotificationConfig',
    v03Method: V03_METHOD_NAMES.CreateTaskPushNotificationConfig,
    paramsFromV03: (params) =>
      from(s.V03TaskPushNotificationConfigSchema, m.CreateTaskPushNotificationConfigRequestSchema, t.taskPushConfigFromV03Value, params),
    paramsToV03: t.taskPushConfigToV03,
    resultFromV03: taskPushConfigFromV03,
    resultToV03: t.taskPushConfigToV03,
  },
  GetTaskPushNotificationConfig: {
    method: 'GetTaskPushNotificationConfig',
    v03Method: V03_METHOD_NAMES.GetTaskPushNotificationConfig,
    // v0.3 let the config id be omitted; v0.3 SDKs then used the task id as the config id.
    paramsFromV03: (params) =>
      from(
        s.V03GetTaskPushNotificationConfigParamsSchema,
        m.GetTaskPushNotificationConfigRequestSchema,
        (p) => ({ taskId: p.id, id: p.pushNotificationConfigId ?? p.id }),
        params,
      ),
    paramsToV03: (params) => ({ id: params.taskId, pushNotificationConfigId: params.id }),
    resultFromV03: taskPushConfigFromV03,
    resultToV03: t.taskPushConfigToV03,
  },
  ListTaskPushNotificationConfigs: {
    method: 'ListTaskPushNotificationConfigs',
    v03Method: V03_METHOD_NAMES.ListTaskPushNotificationConfigs,
    paramsFromV03: (params) =>
      from(
        s.V03ListTaskPushNotificationConfigParamsSchema,
        m.ListTaskPushNotificationConfigsRequestSchema,
        (p) => ({ taskId: p.id }),
        params,
      ),
    paramsToV03: (params) => ({ id: params.taskId }),
    resultFromV03: (result) =>
      from(
        ListPushConfigsResultV03Schema,
        m.ListTaskPushNotificationConfigsResponseSchema,
        (configs) => ({ configs: configs.map(t.taskPushConfigFromV03Value) }),
        result,
      ),
    resultToV03: (result) => (result.configs ?? []).map(t.taskPushConfigToV03),
  },
  DeleteTaskPushNotificationConfig: {
    method: 'DeleteTaskPushNotificationConfig',
    v03Method: V03_METHOD_NAMES.DeleteTaskPushNotificationConfig,
    paramsFromV03: (params) =>
      from(
        s.V03DeleteTaskPushNotificationConfigParamsSchema,
        m.DeleteTaskPushNotificationConfigRequestSchema,
        (p) => ({ taskId: p.id, id: p.pushNotificationConfigId }),
        params,
      ),
    paramsToV03: (params) => ({ id: params.taskId, pushNotificationConfigId: params.id }),
    // v0.3 answers `null`; v1.0 answers `{}`.
    resultFromV03: (result) => (result === null || result === undefined ? { success: true, data: {} } : parseWith(m.EmptySchema, result)),
    resultToV03: () => null,
  },
  GetExtendedAgentCard: {
    method: 'GetExtendedAgentCard',
    v03Method: V03_METHOD_NAMES.GetExtendedAgentCard,
    paramsFromV03: () => ({ success: true, data: {} }),
    paramsToV03: () => ({}),
    resultFromV03: (card) => from(s.V03AgentCardSchema, m.AgentCardSchema, agentCardFromV03Value, card),
    resultToV03: agentCardToV03,
  },
};

/**
 * Classifies an untrusted v0.3 JSON-RPC body (v0.3 method names and params) as the equivalent
 * v1.0 call, so one handler serves both versions. Errors are the same as `classifyJsonRpcRequest`.
 */
export function classifyV03JsonRpcRequest(body: unknown, options: EnvelopeOptions = {}): ClassifiedRequest {
  const envelope = readJsonRpcEnvelope(body, options);
  if (envelope.kind !== 'request') return envelope;
  const { id, method: name, params } = envelope;
  const method = methodFromV03(name);
  if (method === undefined) {
    return { kind: 'error', id, error: new MethodNotFoundError({ metadata: { method: name.slice(0, 128) } }) };
  }
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return { kind: 'error', id, error: new InvalidParamsError({ message: 'params must be an object' }) };
  }
  const translated = (V03_OPERATIONS[method] as V03OperationTranslator<A2AMethod>).paramsFromV03(params ?? {});
  if (!translated.success) {
    return { kind: 'error', id, error: new InvalidParamsError({ details: [{ ...translated.error.toBadRequest() }] }) };
  }
  return { kind: 'request', id, method, params: translated.data } as ClassifiedRequest;
}

/** v0.3 JSON-RPC error codes (v0.3 spec §8.2); v1.0 adds -32008 and -32009. */
export const V03_ERROR_CODES = {
  JSONParseError: -32700,
  InvalidRequestError: -32600,
  MethodNotFoundError: -32601,
  InvalidParamsError: -32602,
  InternalError: -32603,
  TaskNotFoundError: -32001,
  TaskNotCancelableError: -32002,
  PushNotificationNotSupportedError: -32003,
  UnsupportedOperationError: -32004,
  ContentTypeNotSupportedError: -32005,
  InvalidAgentResponseError: -32006,
  AuthenticatedExtendedCardNotConfiguredError: -32007,
} as const;

/**
 * An error as a v0.3 JSON-RPC error object. Codes -32001..-32007 mean the same in both versions;
 * errors v0.3 lacks keep their code (it lies in the server-defined range) and `data` keeps the
 * `google.rpc` details, which v0.3 clients treat as opaque.
 */
export function errorToV03(error: A2AError): JsonRpcErrorObject {
  return error.toJsonRpcError();
}

/** A v0.3 JSON-RPC error object as its error class; a non-array `data` is ignored. */
export function errorFromV03(error: { code: number; message?: unknown; data?: unknown }): A2AError {
  return fromJsonRpcError(error);
}
