import * as z from 'zod/mini';
import { MessageSchema } from './message.js';
import { PartSchema } from './part.js';
import { IdSchema, StructSchema, TimestampSchema, nonEmptyArray } from './primitives.js';
import { SET_TASK_STATES } from './task-states.js';

/** Lifecycle state of a task (spec §4.1.3). */
export const TaskStateSchema = /*#__PURE__*/ z.enum(['TASK_STATE_UNSPECIFIED', ...SET_TASK_STATES]);
export type TaskState = z.infer<typeof TaskStateSchema>;

/** Current status of a task (spec §4.1.2). */
export const TaskStatusSchema = /*#__PURE__*/ z.object({
  state: z.enum(SET_TASK_STATES),
  message: z.optional(MessageSchema),
  timestamp: z.optional(TimestampSchema),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** An output of a task (spec §4.1.7). */
export const ArtifactSchema = /*#__PURE__*/ z.object({
  artifactId: IdSchema,
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  parts: nonEmptyArray(PartSchema),
  metadata: z.optional(StructSchema),
  extensions: z.optional(z.array(z.string())),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

/** The unit of work (spec §4.1.1). */
export const TaskSchema = /*#__PURE__*/ z.object({
  id: IdSchema,
  contextId: z.optional(z.string()),
  status: TaskStatusSchema,
  artifacts: z.optional(z.array(ArtifactSchema)),
  history: z.optional(z.array(MessageSchema)),
  metadata: z.optional(StructSchema),
});
export type Task = z.infer<typeof TaskSchema>;

/** A change of a task's status, delivered on streams and push notifications (spec §4.2.1). */
export const TaskStatusUpdateEventSchema = /*#__PURE__*/ z.object({
  taskId: IdSchema,
  contextId: z.string(),
  status: TaskStatusSchema,
  metadata: z.optional(StructSchema),
});
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEventSchema>;

/** A new or appended artifact (spec §4.2.2). */
export const TaskArtifactUpdateEventSchema = /*#__PURE__*/ z.object({
  taskId: IdSchema,
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.optional(z.boolean()),
  lastChunk: z.optional(z.boolean()),
  metadata: z.optional(StructSchema),
});
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEventSchema>;
