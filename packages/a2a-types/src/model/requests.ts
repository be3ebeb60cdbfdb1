import * as z from 'zod';
import { MessageSchema } from './message.js';
import { oneOfObject } from './one-of.js';
import { IdSchema, Int32Schema, StructSchema, TimestampSchema } from './primitives.js';
import { TaskPushNotificationConfigSchema } from './push.js';
import { TaskArtifactUpdateEventSchema, TaskSchema, TaskStateSchema, TaskStatusUpdateEventSchema } from './task.js';

const HistoryLengthSchema = Int32Schema.min(0, 'must not be negative');

export const SendMessageConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  taskPushNotificationConfig: TaskPushNotificationConfigSchema.optional(),
  historyLength: HistoryLengthSchema.optional(),
  returnImmediately: z.boolean().optional(),
});
export type SendMessageConfiguration = z.infer<typeof SendMessageConfigurationSchema>;

/** Params of SendMessage and SendStreamingMessage (spec §3.2.1). */
export const SendMessageRequestSchema = z.object({
  tenant: z.string().optional(),
  message: MessageSchema,
  configuration: SendMessageConfigurationSchema.optional(),
  metadata: StructSchema.optional(),
});
export type SendMessageRequest = z.infer<typeof SendMessageRequestSchema>;

export const SendMessageResponseSchema = oneOfObject({ task: TaskSchema, message: MessageSchema });
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

/** One item of a stream (spec §3.2.3). */
export const StreamResponseSchema = oneOfObject({
  task: TaskSchema,
  message: MessageSchema,
  statusUpdate: TaskStatusUpdateEventSchema,
  artifactUpdate: TaskArtifactUpdateEventSchema,
});
export type StreamResponse = z.infer<typeof StreamResponseSchema>;

export const GetTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
  historyLength: HistoryLengthSchema.optional(),
});
export type GetTaskRequest = z.infer<typeof GetTaskRequestSchema>;

export const ListTasksRequestSchema = z.object({
  tenant: z.string().optional(),
  contextId: z.string().optional(),
  status: TaskStateSchema.optional(),
  pageSize: Int32Schema.min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').optional(),
  pageToken: z.string().optional(),
  historyLength: HistoryLengthSchema.optional(),
  statusTimestampAfter: TimestampSchema.optional(),
  includeArtifacts: z.boolean().optional(),
});
export type ListTasksRequest = z.infer<typeof ListTasksRequestSchema>;

/**
 * The scalars default when absent: ProtoJSON writers omit default values, so the last page of a
 * proto-based peer arrives without `nextPageToken` (and an empty count without `totalSize`).
 */
export const ListTasksResponseSchema = z.object({
  tasks: z.array(TaskSchema),
  nextPageToken: z.string().default(''),
  pageSize: Int32Schema.default(0),
  totalSize: Int32Schema.default(0),
});
export type ListTasksResponse = z.infer<typeof ListTasksResponseSchema>;

export const CancelTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
  metadata: StructSchema.optional(),
});
export type CancelTaskRequest = z.infer<typeof CancelTaskRequestSchema>;

export const SubscribeToTaskRequestSchema = z.object({
  tenant: z.string().optional(),
  id: IdSchema,
});
export type SubscribeToTaskRequest = z.infer<typeof SubscribeToTaskRequestSchema>;

/** Params of CreateTaskPushNotificationConfig: the config itself, with its task id required. */
export const CreateTaskPushNotificationConfigRequestSchema = TaskPushNotificationConfigSchema.extend({
  taskId: IdSchema,
});
export type CreateTaskPushNotificationConfigRequest = z.infer<typeof CreateTaskPushNotificationConfigRequestSchema>;

export const GetTaskPushNotificationConfigRequestSchema = z.object({
  tenant: z.string().optional(),
  taskId: IdSchema,
  id: IdSchema,
});
export type GetTaskPushNotificationConfigRequest = z.infer<typeof GetTaskPushNotificationConfigRequestSchema>;

export const DeleteTaskPushNotificationConfigRequestSchema = GetTaskPushNotificationConfigRequestSchema;
export type DeleteTaskPushNotificationConfigRequest = z.infer<typeof DeleteTaskPushNotificationConfigRequestSchema>;

export const ListTaskPushNotificationConfigsRequestSchema = z.object({
  tenant: z.string().optional(),
  taskId: IdSchema,
  pageSize: Int32Schema.min(0).optional(),
  pageToken: z.string().optional(),
});
export type ListTaskPushNotificationConfigsRequest = z.infer<typeof ListTaskPushNotificationConfigsRequestSchema>;

export const ListTaskPushNotificationConfigsResponseSchema = z.object({
  configs: z.array(TaskPushNotificationConfigSchema).optional(),
  nextPageToken: z.string().optional(),
});
export type ListTaskPushNotificationConfigsResponse = z.infer<typeof ListTaskPushNotificationConfigsResponseSchema>;

export const GetExtendedAgentCardRequestSchema = z.object({
  tenant: z.string().optional(),
});
export type GetExtendedAgentCardRequest = z.infer<typeof GetExtendedAgentCardRequestSchema>;

/** `google.protobuf.Empty`: the result of DeleteTaskPushNotificationConfig. */
export const EmptySchema = z.object({});
export type Empty = z.infer<typeof EmptySchema>;
