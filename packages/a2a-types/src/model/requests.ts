import * as z from 'zod/mini';
import { MessageSchema } from './message.js';
import { oneOfObject } from './one-of.js';
import { IdSchema, Int32Schema, StructSchema, TimestampSchema, repeated } from './primitives.js';
import { TaskPushNotificationConfigSchema } from './push.js';
import { TaskArtifactUpdateEventSchema, TaskSchema, TaskStateSchema, TaskStatusUpdateEventSchema } from './task.js';

const HistoryLengthSchema = Int32Schema.check(z.gte(0, 'must not be negative'));

export const SendMessageConfigurationSchema = /*#__PURE__*/ z.object({
  acceptedOutputModes: z.optional(z.array(z.string())),
  taskPushNotificationConfig: z.optional(TaskPushNotificationConfigSchema),
  historyLength: z.optional(HistoryLengthSchema),
  returnImmediately: z.optional(z.boolean()),
});
export type SendMessageConfiguration = z.infer<typeof SendMessageConfigurationSchema>;

/** Params of SendMessage and SendStreamingMessage (spec §3.2.1). */
export const SendMessageRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  message: MessageSchema,
  configuration: z.optional(SendMessageConfigurationSchema),
  metadata: z.optional(StructSchema),
});
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

export const SendMessageResponseSchema = /*#__PURE__*/ oneOfObject({ task: TaskSchema, message: MessageSchema });
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

/** One item of a stream (spec §3.2.3). */
export const StreamResponseSchema = /*#__PURE__*/ oneOfObject({
  task: TaskSchema,
  message: MessageSchema,
  statusUpdate: TaskStatusUpdateEventSchema,
  artifactUpdate: TaskArtifactUpdateEventSchema,
});
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

export const GetTaskRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  id: IdSchema,
  historyLength: z.optional(HistoryLengthSchema),
});
export type GetTaskRequest = z.infer<typeof GetTaskRequestSchema>;

export const ListTasksRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  contextId: z.optional(z.string()),
  status: z.optional(TaskStateSchema),
  pageSize: z.optional(Int32Schema.check(z.gte(1, 'must be between 1 and 100'), z.lte(100, 'must be between 1 and 100'))),
  pageToken: z.optional(z.string()),
  historyLength: z.optional(HistoryLengthSchema),
  statusTimestampAfter: z.optional(TimestampSchema),
  includeArtifacts: z.optional(z.boolean()),
});
export type ListTasksRequest = z.infer<typeof ListTasksRequestSchema>;

/**
 * Every field defaults when absent: ProtoJSON writers omit default values, so the last page of a
 * proto-based peer arrives without `nextPageToken`, and an empty page without `tasks` or `totalSize`.
 */
export const ListTasksResponseSchema = /*#__PURE__*/ z.object({
  tasks: repeated(TaskSchema),
  nextPageToken: z._default(z.string(), ''),
  pageSize: z._default(Int32Schema, 0),
  totalSize: z._default(Int32Schema, 0),
});
export type ListTasksResponse = z.infer<typeof ListTasksResponseSchema>;

export const CancelTaskRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  id: IdSchema,
  metadata: z.optional(StructSchema),
});
export type CancelTaskRequest = z.infer<typeof CancelTaskRequestSchema>;

export const SubscribeToTaskRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  id: IdSchema,
});
export type SubscribeToTaskRequest = z.infer<typeof SubscribeToTaskRequestSchema>;

/** Params of CreateTaskPushNotificationConfig: the config itself, with its task id required. */
export const CreateTaskPushNotificationConfigRequestSchema = /*#__PURE__*/ z.extend(TaskPushNotificationConfigSchema, {
  taskId: IdSchema,
});
export type CreateTaskPushNotificationConfigRequest = z.infer<typeof CreateTaskPushNotificationConfigRequestSchema>;

export const GetTaskPushNotificationConfigRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  taskId: IdSchema,
  id: IdSchema,
});
export type GetTaskPushNotificationConfigRequest = z.infer<typeof GetTaskPushNotificationConfigRequestSchema>;

export const DeleteTaskPushNotificationConfigRequestSchema = GetTaskPushNotificationConfigRequestSchema;
export type DeleteTaskPushNotificationConfigRequest = z.infer<typeof DeleteTaskPushNotificationConfigRequestSchema>;

export const ListTaskPushNotificationConfigsRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  taskId: IdSchema,
  pageSize: z.optional(Int32Schema.check(z.gte(0))),
  pageToken: z.optional(z.string()),
});
export type ListTaskPushNotificationConfigsRequest = z.infer<typeof ListTaskPushNotificationConfigsRequestSchema>;

export const ListTaskPushNotificationConfigsResponseSchema = /*#__PURE__*/ z.object({
  configs: z.optional(z.array(TaskPushNotificationConfigSchema)),
  nextPageToken: z.optional(z.string()),
});
export type ListTaskPushNotificationConfigsResponse = z.infer<typeof ListTaskPushNotificationConfigsResponseSchema>;

export const GetExtendedAgentCardRequestSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
});
export type GetExtendedAgentCardRequest = z.infer<typeof GetExtendedAgentCardRequestSchema>;

/** `google.protobuf.Empty`: the result of DeleteTaskPushNotificationConfig. */
export const EmptySchema = /*#__PURE__*/ z.object({});
export type Empty = z.infer<typeof EmptySchema>;
