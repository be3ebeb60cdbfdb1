import type * as z from 'zod/mini';
import { type A2AMethod, REST_BINDINGS, type RestBinding } from './methods.js';
import * as m from './model/index.js';

export {
  A2A_METHODS,
  type A2AMethod,
  type HttpVerb,
  isA2AMethod,
  OPERATION_MESSAGES,
  type QueryParamKind,
  type RestBinding,
} from './methods.js';

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

export interface OperationDescriptor<M extends A2AMethod = A2AMethod> {
  method: M;
  /** Server streams the result as Server-Sent Events. */
  streaming: boolean;
  rest: RestBinding;
  params: z.ZodMiniType<A2ARequestMap[M], unknown>;
  result: z.ZodMiniType<A2AResultMap[M], unknown>;
}

/** The single route table: JSON-RPC method, REST verb and path, schemas. Server and client both read it. */
export const OPERATIONS: { readonly [M in A2AMethod]: OperationDescriptor<M> } = {
  SendMessage: {
    method: 'SendMessage',
    streaming: false,
    rest: REST_BINDINGS.SendMessage,
    params: m.SendMessageRequestSchema,
    result: m.SendMessageResponseSchema,
  },
  SendStreamingMessage: {
    method: 'SendStreamingMessage',
    streaming: true,
    rest: REST_BINDINGS.SendStreamingMessage,
    params: m.SendMessageRequestSchema,
    result: m.StreamResponseSchema,
  },
  GetTask: {
    method: 'GetTask',
    streaming: false,
    rest: REST_BINDINGS.GetTask,
    params: m.GetTaskRequestSchema,
    result: m.TaskSchema,
  },
  ListTasks: {
    method: 'ListTasks',
    streaming: false,
    rest: REST_BINDINGS.ListTasks,
    params: m.ListTasksRequestSchema,
    result: m.ListTasksResponseSchema,
  },
  CancelTask: {
    method: 'CancelTask',
    streaming: false,
    rest: REST_BINDINGS.CancelTask,
    params: m.CancelTaskRequestSchema,
    result: m.TaskSchema,
  },
  SubscribeToTask: {
    method: 'SubscribeToTask',
    streaming: true,
    rest: REST_BINDINGS.SubscribeToTask,
    params: m.SubscribeToTaskRequestSchema,
    result: m.StreamResponseSchema,
  },
  CreateTaskPushNotificationConfig: {
    method: 'CreateTaskPushNotificationConfig',
    streaming: false,
    rest: REST_BINDINGS.CreateTaskPushNotificationConfig,
    params: m.CreateTaskPushNotificationConfigRequestSchema,
    result: m.TaskPushNotificationConfigSchema,
  },
  GetTaskPushNotificationConfig: {
    method: 'GetTaskPushNotificationConfig',
    streaming: false,
    rest: REST_BINDINGS.GetTaskPushNotificationConfig,
    params: m.GetTaskPushNotificationConfigRequestSchema,
    result: m.TaskPushNotificationConfigSchema,
  },
  ListTaskPushNotificationConfigs: {
    method: 'ListTaskPushNotificationConfigs',
    streaming: false,
    rest: REST_BINDINGS.ListTaskPushNotificationConfigs,
    params: m.ListTaskPushNotificationConfigsRequestSchema,
    result: m.ListTaskPushNotificationConfigsResponseSchema,
  },
  DeleteTaskPushNotificationConfig: {
    method: 'DeleteTaskPushNotificationConfig',
    streaming: false,
    rest: REST_BINDINGS.DeleteTaskPushNotificationConfig,
    params: m.DeleteTaskPushNotificationConfigRequestSchema,
    result: m.EmptySchema,
  },
  GetExtendedAgentCard: {
    method: 'GetExtendedAgentCard',
    streaming: false,
    rest: REST_BINDINGS.GetExtendedAgentCard,
    params: m.GetExtendedAgentCardRequestSchema,
    result: m.AgentCardSchema,
  },
};
