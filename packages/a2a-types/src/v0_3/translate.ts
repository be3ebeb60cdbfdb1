import type * as z from 'zod/mini';
import type { Message, Role } from '../model/message.js';
import type { Part } from '../model/part.js';
import { TimestampSchema } from '../model/primitives.js';
import type { AuthenticationInfo, TaskPushNotificationConfig } from '../model/push.js';
import type { SendMessageResponse, StreamResponse } from '../model/requests.js';
import type { Artifact, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent } from '../model/task.js';
import { isInterruptedTaskState, isTerminalTaskState } from '../model/task-states.js';
import { type ParseResult, parseWith } from '../validation.js';
import { withOptional } from './optional.js';
import type {
  V03Artifact,
  V03Message,
  V03Part,
  V03PushNotificationAuthenticationInfo,
  V03PushNotificationConfig,
  V03Role,
  V03SendMessageResult,
  V03StreamEvent,
  V03Task,
  V03TaskArtifactUpdateEvent,
  V03TaskPushNotificationConfig,
  V03TaskState,
  V03TaskStatus,
  V03TaskStatusUpdateEvent,
} from './schemas.js';

/*
 * Translators between the v0.3 and v1.0 wire shapes. `xToV03` takes a valid v1.0 value and is total.
 * `xFromV03` takes untrusted input: it validates the v0.3 shape, translates, then validates the
 * v1.0 result (v1.0 is stricter: non-empty ids and parts, base64, UTC timestamps), and never throws.
 * Every lossy corner is listed in docs/v0_3-compatibility.md.
 */

/**
 * Parses untrusted v0.3 input with `from`, translates it with `translate`, then checks the v1.0
 * result with `to`. Violations name the field in the shape that failed.
 */
export function translateFromV03<From extends z.core.$ZodType, To extends z.core.$ZodType>(
  from: From,
  to: To,
  translate: (value: z.output<From>) => unknown,
  input: unknown,
): ParseResult<z.output<To>> {
  const parsed = parseWith(from, input);
  if (!parsed.success) return parsed;
  return parseWith(to, translate(parsed.data));
}

// ---- enums -------------------------------------------------------------------------------------

const ROLE_TO_V1: Record<V03Role, Exclude<Role, 'ROLE_UNSPECIFIED'>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };
export const roleFromV03 = (role: V03Role): Exclude<Role, 'ROLE_UNSPECIFIED'> => ROLE_TO_V1[role];
export const roleToV03 = (role: Role): V03Role => (role === 'ROLE_AGENT' ? 'agent' : 'user');

const STATE_TO_V1: Record<V03TaskState, TaskState> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  // v0.3 `unknown` is the v1.0 "not set" value, which a TaskStatus may not carry.
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATE_TO_V03 = Object.fromEntries(Object.entries(STATE_TO_V1).map(([k, v]) => [v, k])) as Record<TaskState, V03TaskState>;
export const taskStateFromV03 = (state: V03TaskState): TaskState => STATE_TO_V1[state];
export const taskStateToV03 = (state: TaskState): V03TaskState => STATE_TO_V03[state];

// ---- parts and messages ------------------------------------------------------------------------

/**
 * Part metadata flag marking a v0.3 data part `{ value: x }` that wraps a v1.0 `data` value which is
 * not an object. The official A2A JS SDK uses the same key, so wrapped values unwrap on either side.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

function dataPartFromV03(part: Extract<V03Part, { kind: 'data' }>): Part {
  if (part.metadata?.[DATA_PART_COMPAT_FLAG] !== true) return withOptional({ data: part.data }, { metadata: part.metadata });
  const { [DATA_PART_COMPAT_FLAG]: _flag, ...metadata } = part.metadata;
  const data = Object.hasOwn(part.data, 'value') ? part.data.value : part.data;
  return withOptional({ data }, { metadata: Object.keys(metadata).length > 0 ? metadata : undefined });
}

/** v0.3 part -> v1.0 part. File parts become `raw` or `url` parts; the file name and type move up. */
export function partFromV03Value(part: V03Part): Part {
  switch (part.kind) {
    case 'text':
      return withOptional({ text: part.text }, { metadata: part.metadata });
    case 'data':
      return dataPartFromV03(part);
    case 'file': {
      const { file } = part;
      const content = 'bytes' in file ? { raw: file.bytes } : { url: file.uri };
      return withOptional(content, { metadata: part.metadata, filename: file.name, mediaType: file.mimeType }) as Part;
    }
  }
}

/**
 * v1.0 part -> v0.3 part. A `data` value that is not a JSON object is wrapped as `{ "value": data }`
 * with `metadata.data_part_compat: true`, which `partFromV03Value` unwraps. Lossy: `filename` and
 * `mediaType` of text and data parts are dropped.
 */
export function partToV03(part: Part): V03Part {
  if (part.text !== undefined) return withOptional({ kind: 'text' as const, text: part.text }, { metadata: part.metadata });
  if (part.raw !== undefined || part.url !== undefined) {
    const file = withOptional(part.raw !== undefined ? { bytes: part.raw } : { uri: part.url as string }, {
      name: part.filename,
      mimeType: part.mediaType,
    });
    return withOptional({ kind: 'file' as const, file }, { metadata: part.metadata });
  }
  const data = part.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    return withOptional({ kind: 'data' as const, data: data as Record<string, unknown> }, { metadata: part.metadata });
  }
  return { kind: 'data' as const, data: { value: data }, metadata: { ...part.metadata, [DATA_PART_COMPAT_FLAG]: true } };
}

export function messageFromV03Value(message: V03Message): Message {
  return withOptional(
    { messageId: message.messageId, role: roleFromV03(message.role), parts: message.parts.map(partFromV03Value) },
    {
      contextId: message.contextId,
      taskId: message.taskId,
      metadata: message.metadata,
      extensions: message.extensions,
      referenceTaskIds: message.referenceTaskIds,
    },
  );
}

export function messageToV03(message: Message): V03Message {
  return withOptional(
    { kind: 'message' as const, messageId: message.messageId, role: roleToV03(message.role), parts: message.parts.map(partToV03) },
    {
      contextId: message.contextId,
      taskId: message.taskId,
      metadata: message.metadata,
      extensions: message.extensions,
      referenceTaskIds: message.referenceTaskIds,
    },
  );
}

// ---- tasks and events --------------------------------------------------------------------------

/**
 * v0.3 timestamps may carry an offset or none; v1.0 wants UTC with `Z`, so valid dates are
 * normalised. A date-time without a zone is read as UTC, never as the host's local time.
 */
function timestampFromV03(timestamp: string | undefined): string | undefined {
  if (timestamp === undefined) return timestamp;
  const rfc3339 = TimestampSchema.safeParse(timestamp);
  if (rfc3339.success) return rfc3339.data;
  const zoned = /T[\d:.]+$/i.test(timestamp) ? `${timestamp}Z` : timestamp;
  const millis = Date.parse(zoned);
  return Number.isFinite(millis) ? new Date(millis).toISOString() : timestamp;
}

export function statusFromV03Value(status: V03TaskStatus): TaskStatus {
  return withOptional(
    // `unknown` maps to TASK_STATE_UNSPECIFIED, which v1.0 validation then rejects at `state`.
    { state: taskStateFromV03(status.state) as TaskStatus['state'] },
    { message: status.message && messageFromV03Value(status.message), timestamp: timestampFromV03(status.timestamp) },
  );
}

export function statusToV03(status: TaskStatus): V03TaskStatus {
  return withOptional(
    { state: taskStateToV03(status.state) },
    { message: status.message && messageToV03(status.message), timestamp: status.timestamp },
  );
}

export function artifactFromV03Value(artifact: V03Artifact): Artifact {
  return withOptional(
    { artifactId: artifact.artifactId, parts: artifact.parts.map(partFromV03Value) },
    { name: artifact.name, description: artifact.description, metadata: artifact.metadata, extensions: artifact.extensions },
  );
}

export function artifactToV03(artifact: Artifact): V03Artifact {
  return withOptional(
    { artifactId: artifact.artifactId, parts: artifact.parts.map(partToV03) },
    { name: artifact.name, description: artifact.description, metadata: artifact.metadata, extensions: artifact.extensions },
  );
}

export function taskFromV03Value(task: V03Task): Task {
  return withOptional(
    { id: task.id, contextId: task.contextId, status: statusFromV03Value(task.status) },
    {
      artifacts: task.artifacts?.map(artifactFromV03Value),
      history: task.history?.map(messageFromV03Value),
      metadata: task.metadata,
    },
  );
}

/** Lossy: a v1.0 task without `contextId` gets `""`, since v0.3 requires the field. */
export function taskToV03(task: Task): V03Task {
  return withOptional(
    { kind: 'task' as const, id: task.id, contextId: task.contextId ?? '', status: statusToV03(task.status) },
    { artifacts: task.artifacts?.map(artifactToV03), history: task.history?.map(messageToV03), metadata: task.metadata },
  );
}

/** Lossy: v0.3 `final` is dropped; in v1.0 the end of the stream says the same. */
export function statusUpdateFromV03Value(event: V03TaskStatusUpdateEvent): TaskStatusUpdateEvent {
  return withOptional(
    { taskId: event.taskId, contextId: event.contextId, status: statusFromV03Value(event.status) },
    { metadata: event.metadata },
  );
}

/**
 * `final` is synthesised: true for terminal and interrupted states, the states after which a v1.0
 * stream closes (spec §3.2.3 names the terminal ones, the binding overview adds interrupted ones).
 */
export function statusUpdateToV03(event: TaskStatusUpdateEvent): V03TaskStatusUpdateEvent {
  const final = isTerminalTaskState(event.status.state) || isInterruptedTaskState(event.status.state);
  return withOptional(
    { kind: 'status-update' as const, taskId: event.taskId, contextId: event.contextId, status: statusToV03(event.status), final },
    { metadata: event.metadata },
  );
}

export function artifactUpdateFromV03Value(event: V03TaskArtifactUpdateEvent): TaskArtifactUpdateEvent {
  return withOptional(
    { taskId: event.taskId, contextId: event.contextId, artifact: artifactFromV03Value(event.artifact) },
    { append: event.append, lastChunk: event.lastChunk, metadata: event.metadata },
  );
}

export function artifactUpdateToV03(event: TaskArtifactUpdateEvent): V03TaskArtifactUpdateEvent {
  return withOptional(
    { kind: 'artifact-update' as const, taskId: event.taskId, contextId: event.contextId, artifact: artifactToV03(event.artifact) },
    { append: event.append, lastChunk: event.lastChunk, metadata: event.metadata },
  );
}

export function streamEventFromV03Value(event: V03StreamEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: taskFromV03Value(event) };
    case 'message':
      return { message: messageFromV03Value(event) };
    case 'status-update':
      return { statusUpdate: statusUpdateFromV03Value(event) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdateFromV03Value(event) };
  }
}

export function streamResponseToV03(event: StreamResponse): V03StreamEvent {
  if (event.task !== undefined) return taskToV03(event.task);
  if (event.message !== undefined) return messageToV03(event.message);
  if (event.statusUpdate !== undefined) return statusUpdateToV03(event.statusUpdate);
  return artifactUpdateToV03(event.artifactUpdate as TaskArtifactUpdateEvent);
}

export function sendMessageResultFromV03Value(result: V03SendMessageResult): SendMessageResponse {
  return result.kind === 'task' ? { task: taskFromV03Value(result) } : { message: messageFromV03Value(result) };
}

/** v1.0 `SendMessageResponse` -> the v0.3 `message/send` result: a bare Task or Message with `kind`. */
export function sendMessageResponseToV03(response: SendMessageResponse): V03SendMessageResult {
  return response.task !== undefined ? taskToV03(response.task) : messageToV03(response.message as Message);
}

// ---- push notification configs -----------------------------------------------------------------

/** Lossy: v0.3 lists several schemes; v1.0 keeps the first. */
export function authenticationFromV03Value(auth: V03PushNotificationAuthenticationInfo): AuthenticationInfo {
  return withOptional({ scheme: auth.schemes[0] ?? '' }, { credentials: auth.credentials });
}

export function authenticationToV03(auth: AuthenticationInfo): V03PushNotificationAuthenticationInfo {
  return withOptional({ schemes: [auth.scheme] }, { credentials: auth.credentials });
}

/** A v0.3 `PushNotificationConfig` (no task id) as the v1.0 config; pass `taskId` when known. */
export function pushConfigFromV03Value(config: V03PushNotificationConfig, taskId?: string): TaskPushNotificationConfig {
  return withOptional(
    { url: config.url },
    {
      id: config.id,
      taskId,
      token: config.token,
      authentication: config.authentication && authenticationFromV03Value(config.authentication),
    },
  );
}

/** Lossy: `tenant` and `taskId` have no place in a v0.3 `PushNotificationConfig`. */
export function pushConfigToV03(config: TaskPushNotificationConfig): V03PushNotificationConfig {
  return withOptional(
    { url: config.url },
    { id: config.id, token: config.token, authentication: config.authentication && authenticationToV03(config.authentication) },
  );
}

export function taskPushConfigFromV03Value(config: V03TaskPushNotificationConfig): TaskPushNotificationConfig {
  return pushConfigFromV03Value(config.pushNotificationConfig, config.taskId);
}

/** Lossy: `tenant` is dropped; a missing `taskId` becomes `""`. */
export function taskPushConfigToV03(config: TaskPushNotificationConfig): V03TaskPushNotificationConfig {
  return { taskId: config.taskId ?? '', pushNotificationConfig: pushConfigToV03(config) };
}
