import type * as z from 'zod/mini';
import * as m from './model/index.js';
import { fromProtoJson, type ProtoMessageName } from './proto-json.js';
import { type ParseResult, parseWith } from './validation.js';

/**
 * `parseWith` for a message of a2a.proto: accepts each field under its JSON name or its proto name
 * (ProtoJSON, spec §5.5) and returns the camelCase model.
 */
export function parseProtoJson<S extends z.core.$ZodType>(
  type: ProtoMessageName,
  schema: S,
  input: unknown,
  fieldPrefix = '',
): ParseResult<z.output<S>> {
  const renamed = fromProtoJson(type, input, fieldPrefix);
  return renamed.success ? parseWith(schema, renamed.data, fieldPrefix) : renamed;
}

// One named parser per top-level wire object, so callers never need zod to validate input.
export const parseTask = (input: unknown): ParseResult<m.Task> => parseProtoJson('Task', m.TaskSchema, input);
export const parseMessage = (input: unknown): ParseResult<m.Message> => parseProtoJson('Message', m.MessageSchema, input);
export const parsePart = (input: unknown): ParseResult<m.Part> => parseProtoJson('Part', m.PartSchema, input);
export const parseArtifact = (input: unknown): ParseResult<m.Artifact> => parseProtoJson('Artifact', m.ArtifactSchema, input);
export const parseAgentCard = (input: unknown): ParseResult<m.AgentCard> => parseProtoJson('AgentCard', m.AgentCardSchema, input);
export const parseStreamResponse = (input: unknown): ParseResult<m.StreamResponse> =>
  parseProtoJson('StreamResponse', m.StreamResponseSchema, input);
export const parseSendMessageRequest = (input: unknown): ParseResult<m.SendMessageRequest> =>
  parseProtoJson('SendMessageRequest', m.SendMessageRequestSchema, input);
export const parseSendMessageResponse = (input: unknown): ParseResult<m.SendMessageResponse> =>
  parseProtoJson('SendMessageResponse', m.SendMessageResponseSchema, input);
export const parseTaskPushNotificationConfig = (input: unknown): ParseResult<m.TaskPushNotificationConfig> =>
  parseProtoJson('TaskPushNotificationConfig', m.TaskPushNotificationConfigSchema, input);
