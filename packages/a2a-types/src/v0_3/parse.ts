import * as m from '../model/index.js';
import type { ParseResult } from '../validation.js';
import { agentCardFromV03Value } from './agent-card.js';
import * as s from './schemas.js';
import * as t from './translate.js';

// Untrusted v0.3 JSON -> validated v1.0 value. Each validates the v0.3 shape, translates, and
// validates the v1.0 result; none throws.
const from = t.translateFromV03;

export const partFromV03 = (input: unknown): ParseResult<m.Part> => from(s.V03PartSchema, m.PartSchema, t.partFromV03Value, input);
export const messageFromV03 = (input: unknown): ParseResult<m.Message> =>
  from(s.V03MessageSchema, m.MessageSchema, t.messageFromV03Value, input);
export const taskStatusFromV03 = (input: unknown): ParseResult<m.TaskStatus> =>
  from(s.V03TaskStatusSchema, m.TaskStatusSchema, t.statusFromV03Value, input);
export const artifactFromV03 = (input: unknown): ParseResult<m.Artifact> =>
  from(s.V03ArtifactSchema, m.ArtifactSchema, t.artifactFromV03Value, input);
export const taskFromV03 = (input: unknown): ParseResult<m.Task> => from(s.V03TaskSchema, m.TaskSchema, t.taskFromV03Value, input);
export const statusUpdateFromV03 = (input: unknown): ParseResult<m.TaskStatusUpdateEvent> =>
  from(s.V03TaskStatusUpdateEventSchema, m.TaskStatusUpdateEventSchema, t.statusUpdateFromV03Value, input);
export const artifactUpdateFromV03 = (input: unknown): ParseResult<m.TaskArtifactUpdateEvent> =>
  from(s.V03TaskArtifactUpdateEventSchema, m.TaskArtifactUpdateEventSchema, t.artifactUpdateFromV03Value, input);
export const streamEventFromV03 = (input: unknown): ParseResult<m.StreamResponse> =>
  from(s.V03StreamEventSchema, m.StreamResponseSchema, t.streamEventFromV03Value, input);
export const sendMessageResultFromV03 = (input: unknown): ParseResult<m.SendMessageResponse> =>
  from(s.V03SendMessageResultSchema, m.SendMessageResponseSchema, t.sendMessageResultFromV03Value, input);
export const agentCardFromV03 = (input: unknown): ParseResult<m.AgentCard> =>
  from(s.V03AgentCardSchema, m.AgentCardSchema, agentCardFromV03Value, input);
export const pushConfigFromV03 = (input: unknown): ParseResult<m.TaskPushNotificationConfig> =>
  from(s.V03PushNotificationConfigSchema, m.TaskPushNotificationConfigSchema, (c) => t.pushConfigFromV03Value(c), input);
export const taskPushConfigFromV03 = (input: unknown): ParseResult<m.TaskPushNotificationConfig> =>
  from(s.V03TaskPushNotificationConfigSchema, m.TaskPushNotificationConfigSchema, t.taskPushConfigFromV03Value, input);
