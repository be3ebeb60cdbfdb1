import * as m from './model/index.js';
import { type ParseResult, parseWith } from './validation.js';

// One named parser per top-level wire object, so callers never need zod to validate input.
export const parseTask = (input: unknown): ParseResult<m.Task> => parseWith(m.TaskSchema, input);
export const parseMessage = (input: unknown): ParseResult<m.Message> => parseWith(m.MessageSchema, input);
export const parsePart = (input: unknown): ParseResult<m.Part> => parseWith(m.PartSchema, input);
export const parseArtifact = (input: unknown): ParseResult<m.Artifact> => parseWith(m.ArtifactSchema, input);
export const parseAgentCard = (input: unknown): ParseResult<m.AgentCard> => parseWith(m.AgentCardSchema, input);
export const parseStreamResponse = (input: unknown): ParseResult<m.StreamResponse> =>
  parseWith(m.StreamResponseSchema, input);
export const parseSendMessageRequest = (input: unknown): ParseResult<m.SendMessageRequest> =>
  parseWith(m.SendMessageRequestSchema, input);
export const parseSendMessageResponse = (input: unknown): ParseResult<m.SendMessageResponse> =>
  parseWith(m.SendMessageResponseSchema, input);
export const parseTaskPushNotificationConfig = (input: unknown): ParseResult<m.TaskPushNotificationConfig> =>
  parseWith(m.TaskPushNotificationConfigSchema, input);
