import type { AgentCard, SendMessageRequest, StreamResponse } from '@a2aplane/a2a-types';
import type { MessageStreamSource } from '../src/index.js';

export function card(
  options: {
    skills?: Array<{ id: string; inputModes?: string[] }>;
    defaultInputModes?: string[];
    streaming?: boolean;
    pushNotifications?: boolean;
  } = {},
): AgentCard {
  return {
    name: 'peer',
    description: 'test peer',
    supportedInterfaces: [{ url: 'https://peer.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: {
      ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
      ...(options.pushNotifications === undefined ? {} : { pushNotifications: options.pushNotifications }),
    },
    defaultInputModes: options.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: (options.skills ?? [{ id: 'analysis' }]).map((skill) => ({
      id: skill.id,
      name: skill.id,
      description: skill.id,
      tags: [],
      ...(skill.inputModes ? { inputModes: skill.inputModes } : {}),
    })),
  };
}

export function request(text = 'hello'): SendMessageRequest {
  return { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text }], metadata: { keep: 'me' } } };
}

export const STREAM: StreamResponse[] = [
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' } } },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text: 'part one, ' }] } } },
  {
    artifactUpdate: { taskId: 't-1', contextId: 'c-1', append: true, artifact: { artifactId: 'a-1', parts: [{ text: 'part two' }] } },
  },
  { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } },
];

/** A fake source that replays events and records what it was called with. */
export function replaySource(events: readonly StreamResponse[]): MessageStreamSource & { calls: Array<{ request: SendMessageRequest }> } {
  const calls: Array<{ request: SendMessageRequest }> = [];
  return {
    calls,
    async *stream(req) {
      calls.push({ request: req });
      for (const event of events) {
        await Promise.resolve();
        yield structuredClone(event);
      }
    },
  };
}
