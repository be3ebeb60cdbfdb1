import type * as z from 'zod/mini';
import * as m from './model/index.js';

/** The eleven A2A v1.0 operations, by their JSON-RPC method name (spec §5.3). */
export const A2A_METHODS = [
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
] as const;
export type A2AMethod = (typeof A2A_METHODS)[number];

/** Params type of each operation. */
export interface A2ARequestMap {
  SendMessage: m.SendMessageRequest;
  SendStreamingMessage: m.SendMessageRequest;
  GetTask: m.GetTaskRequest;
  ListTasks: m.ListTasksRequest;
  CancelTask: m.CancelTaskRequest;
  SubscribeToTask: m.SubscribeToTaskRequest;
  CreateTaskPushNotificationConfig: m.CreateTaskPushNotificationConfigRequest;
  GetTaskPushNotificationConfig: m.GetTaskPushNotificationConfigRequest;
  ListTaskPushNotificationConfigs: m.ListTaskPushNotificationConfigsRequest;
  DeleteTaskPushNotificationConfig: m.DeleteTaskPushNotificationConfigRequest;
  GetExtendedAgentCard: m.GetExtendedAgentCardRequest;
}

/** Result type of each operation; for the two streaming operations, the type of one stream item. */
export interface A2AResultMap {
  SendMessage: m.SendMessageResponse;
  SendStreamingMessage: m.StreamResponse;
  GetTask: m.Task;
  ListTasks: m.ListTasksResponse;
  CancelTask: m.Task;
  SubscribeToTask: m.StreamResponse;
  CreateTaskPushNotificationConfig: m.TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: m.TaskPushNotificationConfig;
  ListTaskPushNotificationConfigs: m.ListTaskPushNotificationConfigsResponse;
  DeleteTaskPushNotificationConfig: m.Empty;
  GetExtendedAgentCard: m.AgentCard;
}

export type HttpVerb = 'GET' | 'POST' | 'DELETE';
/** How a GET query parameter is converted from its string form (spec §11.5). */
export type QueryParamKind = 'string' | 'int' | 'bool' | 'enum' | 'timestamp';

export interface RestBinding {
  verb: HttpVerb;
  /** Other verbs a server should accept for the same route (the spec text and proto disagree on subscribe). */
  alternateVerbs: readonly HttpVerb[];
  /** Path template relative to the REST base, without the optional `/{tenant}` prefix. */
  path: string;
  /** Whether the non-path fields travel in a JSON body (POST) or in the query string (GET/DELETE). */
  body: boolean;
  /** Query parameters a GET/DELETE accepts, with how to read each. */
  query: Readonly<Record<string, QueryParamKind>>;
}

export interface OperationDescriptor<M extends A2AMethod = A2AMethod> {
  method: M;
  /** Server streams the result as Server-Sent Events. */
  streaming: boolean;
  rest: RestBinding;
  params: z.ZodMiniType<A2ARequestMap[M], unknown>;
  result: z.ZodMiniType<A2AResultMap[M], unknown>;
}

const rest = (
  verb: HttpVerb,
  path: string,
  options: { query?: Record<string, QueryParamKind>; alternateVerbs?: HttpVerb[] } = {},
): RestBinding => ({
  verb,
  alternateVerbs: options.alternateVerbs ?? [],
  path,
  body: verb === 'POST',
  query: options.query ?? {},
});

/** The single route table: JSON-RPC method, REST verb and path, schemas. Server and client both read it. */
export const OPERATIONS: { readonly [M in A2AMethod]: OperationDescriptor<M> } = {
  SendMessage: {
    method: 'SendMessage',
    streaming: false,
    rest: rest('POST', '/message:send'),
    params: m.SendMessageRequestSchema,
    result: m.SendMessageResponseSchema,
  },
  SendStreamingMessage: {
    method: 'SendStreamingMessage',
    streaming: true,
    rest: rest('POST', '/message:stream'),
    params: m.SendMessageRequestSchema,
    result: m.StreamResponseSchema,
  },
  GetTask: {
    method: 'GetTask',
    streaming: false,
    rest: rest('GET', '/tasks/{id}', { query: { historyLength: 'int' } }),
    params: m.GetTaskRequestSchema,
    result: m.TaskSchema,
  },
  ListTasks: {
    method: 'ListTasks',
    streaming: false,
    rest: rest('GET', '/tasks', {
      query: {
        contextId: 'string',
        status: 'enum',
        pageSize: 'int',
        pageToken: 'string',
        historyLength: 'int',
        statusTimestampAfter: 'timestamp',
        includeArtifacts: 'bool',
      },
    }),
    params: m.ListTasksRequestSchema,
    result: m.ListTasksResponseSchema,
  },
  CancelTask: {
    method: 'CancelTask',
    streaming: false,
    rest: rest('POST', '/tasks/{id}:cancel'),
    params: m.CancelTaskRequestSchema,
    result: m.TaskSchema,
  },
  SubscribeToTask: {
    method: 'SubscribeToTask',
    streaming: true,
    // The proto binds GET; the method table of spec §5.3 says POST. Clients use GET, servers accept both.
    rest: rest('GET', '/tasks/{id}:subscribe', { alternateVerbs: ['POST'] }),
    params: m.SubscribeToTaskRequestSchema,
    result: m.StreamResponseSchema,
  },
  CreateTaskPushNotificationConfig: {
    method: 'CreateTaskPushNotificationConfig',
    streaming: false,
    rest: rest('POST', '/tasks/{taskId}/pushNotificationConfigs'),
    params: m.CreateTaskPushNotificationConfigRequestSchema,
    result: m.TaskPushNotificationConfigSchema,
  },
  GetTaskPushNotificationConfig: {
    method: 'GetTaskPushNotificationConfig',
    streaming: false,
    rest: rest('GET', '/tasks/{taskId}/pushNotificationConfigs/{id}'),
    params: m.GetTaskPushNotificationConfigRequestSchema,
    result: m.TaskPushNotificationConfigSchema,
  },
  ListTaskPushNotificationConfigs: {
    method: 'ListTaskPushNotificationConfigs',
    streaming: false,
    rest: rest('GET', '/tasks/{taskId}/pushNotificationConfigs', { query: { pageSize: 'int', pageToken: 'string' } }),
    params: m.ListTaskPushNotificationConfigsRequestSchema,
    result: m.ListTaskPushNotificationConfigsResponseSchema,
  },
  DeleteTaskPushNotificationConfig: {
    method: 'DeleteTaskPushNotificationConfig',
    streaming: false,
    rest: rest('DELETE', '/tasks/{taskId}/pushNotificationConfigs/{id}'),
    params: m.DeleteTaskPushNotificationConfigRequestSchema,
    result: m.EmptySchema,
  },
  GetExtendedAgentCard: {
    method: 'GetExtendedAgentCard',
    streaming: false,
    rest: rest('GET', '/extendedAgentCard'),
    params: m.GetExtendedAgentCardRequestSchema,
    result: m.AgentCardSchema,
  },
};

const METHOD_SET: ReadonlySet<string> = new Set(A2A_METHODS);
export const isA2AMethod = (value: unknown): value is A2AMethod => typeof value === 'string' && METHOD_SET.has(value);
