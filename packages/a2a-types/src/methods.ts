// The operation names and their REST routes, without zod: the REST route helpers and the client read
// these without pulling in the schemas of `operations.ts`.
import type { ProtoMessageName } from './proto-names.js';

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

/** The REST route of every operation (spec §11.3). Pure: the ProtoJSON renamer's chunk imports this module for `OPERATION_MESSAGES` alone. */
export const REST_BINDINGS: { readonly [M in A2AMethod]: RestBinding } = {
  SendMessage: /* @__PURE__ */ rest('POST', '/message:send'),
  SendStreamingMessage: /* @__PURE__ */ rest('POST', '/message:stream'),
  GetTask: /* @__PURE__ */ rest('GET', '/tasks/{id}', { query: { historyLength: 'int' } }),
  ListTasks: /* @__PURE__ */ rest('GET', '/tasks', {
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
  CancelTask: /* @__PURE__ */ rest('POST', '/tasks/{id}:cancel'),
  // The proto binds GET; the method table of spec §5.3 says POST. Clients use GET, servers accept both.
  SubscribeToTask: /* @__PURE__ */ rest('GET', '/tasks/{id}:subscribe', { alternateVerbs: ['POST'] }),
  CreateTaskPushNotificationConfig: /* @__PURE__ */ rest('POST', '/tasks/{taskId}/pushNotificationConfigs'),
  GetTaskPushNotificationConfig: /* @__PURE__ */ rest('GET', '/tasks/{taskId}/pushNotificationConfigs/{id}'),
  ListTaskPushNotificationConfigs: /* @__PURE__ */ rest('GET', '/tasks/{taskId}/pushNotificationConfigs', {
    query: { pageSize: 'int', pageToken: 'string' },
  }),
  DeleteTaskPushNotificationConfig: /* @__PURE__ */ rest('DELETE', '/tasks/{taskId}/pushNotificationConfigs/{id}'),
  GetExtendedAgentCard: /* @__PURE__ */ rest('GET', '/extendedAgentCard'),
};

/**
 * The a2a.proto message of each operation's params and result (one stream item for the streaming
 * operations), for `fromProtoJson`. `DeleteTaskPushNotificationConfig` returns `google.protobuf.Empty`.
 */
export const OPERATION_MESSAGES: {
  readonly [M in A2AMethod]: { readonly params: ProtoMessageName; readonly result: ProtoMessageName | undefined };
} = {
  SendMessage: { params: 'SendMessageRequest', result: 'SendMessageResponse' },
  SendStreamingMessage: { params: 'SendMessageRequest', result: 'StreamResponse' },
  GetTask: { params: 'GetTaskRequest', result: 'Task' },
  ListTasks: { params: 'ListTasksRequest', result: 'ListTasksResponse' },
  CancelTask: { params: 'CancelTaskRequest', result: 'Task' },
  SubscribeToTask: { params: 'SubscribeToTaskRequest', result: 'StreamResponse' },
  // The REST body and the JSON-RPC params of Create are the config itself.
  CreateTaskPushNotificationConfig: { params: 'TaskPushNotificationConfig', result: 'TaskPushNotificationConfig' },
  GetTaskPushNotificationConfig: { params: 'GetTaskPushNotificationConfigRequest', result: 'TaskPushNotificationConfig' },
  ListTaskPushNotificationConfigs: {
    params: 'ListTaskPushNotificationConfigsRequest',
    result: 'ListTaskPushNotificationConfigsResponse',
  },
  DeleteTaskPushNotificationConfig: { params: 'DeleteTaskPushNotificationConfigRequest', result: undefined },
  GetExtendedAgentCard: { params: 'GetExtendedAgentCardRequest', result: 'AgentCard' },
};

const METHOD_SET: ReadonlySet<string> = /* @__PURE__ */ new Set(A2A_METHODS);
export const isA2AMethod = (value: unknown): value is A2AMethod => typeof value === 'string' && METHOD_SET.has(value);
