import {
  MessageSchema,
  type ParseResult,
  parseWith,
  type StreamResponse,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  TaskStatusUpdateEventSchema,
} from '@a2aplane/a2a-types';
import type { AgentEvent } from '../agent/executor.js';
import { fastParseArtifactUpdate, fastParseMessage, fastParseStatusUpdate, fastParseTask } from './event-validation.js';

const parsedOrUndefined = <T>(result: ParseResult<T>): T | undefined => (result.success ? result.data : undefined);

/** Classifies an executor event by shape and validates it. */
export function toStreamResponse(event: AgentEvent): StreamResponse | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const value = event as unknown as Record<string, unknown>;
  // The fast parsers vouch for the common valid events; anything they do not pass goes to zod.
  if ('messageId' in value && 'role' in value) {
    const message = fastParseMessage(value) ?? parsedOrUndefined(parseWith(MessageSchema, value));
    return message ? { message } : undefined;
  }
  if ('artifact' in value && 'taskId' in value) {
    const artifactUpdate = fastParseArtifactUpdate(value) ?? parsedOrUndefined(parseWith(TaskArtifactUpdateEventSchema, value));
    return artifactUpdate ? { artifactUpdate } : undefined;
  }
  if ('status' in value && 'taskId' in value) {
    const statusUpdate = fastParseStatusUpdate(value) ?? parsedOrUndefined(parseWith(TaskStatusUpdateEventSchema, value));
    return statusUpdate ? { statusUpdate } : undefined;
  }
  if ('status' in value && 'id' in value) {
    const task = fastParseTask(value) ?? parsedOrUndefined(parseWith(TaskSchema, value));
    return task ? { task } : undefined;
  }
  return undefined;
}

/**
 * An executor event as the run's rules see it, decided once per event: `'invalid'` (not a valid
 * Task, Message or update), `'foreign'` (an event of another task), or the event as a
 * `StreamResponse` (`message` set: the executor answered with a Message; else an event of this task).
 * Sentinels and the response itself rather than a wrapper: no object per event on the hot path.
 */
export type ClassifiedEvent = 'invalid' | 'foreign' | StreamResponse;

/**
 * The one classifier of executor events (`taskId`: the run's task); an event that throws while it
 * is read (a hostile getter) is invalid. What the task's state allows is the runtime's to decide.
 */
export function classifyAgentEvent(event: AgentEvent, taskId: string): ClassifiedEvent {
  let response: StreamResponse | undefined;
  try {
    response = toStreamResponse(event);
  } catch {
    return 'invalid';
  }
  if (!response) return 'invalid';
  if (response.message) return response;
  const eventTaskId = response.task?.id ?? response.statusUpdate?.taskId ?? response.artifactUpdate?.taskId;
  return eventTaskId === taskId ? response : 'foreign';
}
