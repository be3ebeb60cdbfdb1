import { type A2AServerOptions, type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express/core';
import { type AgentCard, DEFAULT_JSON_RPC_PATH } from '@a2aplane/a2a-types';
import { benchCard, type Mode, replyText } from './common.js';

export const card = (baseUrl: string) => benchCard('bench-ours', `${baseUrl}${DEFAULT_JSON_RPC_PATH}`) as AgentCard;

/**
 * The executor of every "ours" server: one Message, or a task with one text artifact, after `delayMs`; or (stream)
 * a task streaming `count` chunks (`e0`, `e1`, ...; message metadata, default 20) one every `everyMs` (default 5).
 */
export function executor(mode: Mode, delayMs = 0): AgentExecutor {
  return {
    async execute(context, sink) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const first = context.message.parts[0];
      const text = replyText(first && 'text' in first && typeof first.text === 'string' ? first.text : '');
      if (mode === 'message') {
        sink.publish({ messageId: globalThis.crypto.randomUUID(), contextId: context.contextId, role: 'ROLE_AGENT', parts: [{ text }] });
        return;
      }
      const updater = createTaskUpdater(context, sink);
      updater.submit();
      updater.startWork();
      if (mode === 'task') updater.addArtifact([{ text }], { artifactId: 'a-1' });
      else {
        const { count = 20, everyMs = 5 } = (context.message.metadata ?? {}) as { count?: number; everyMs?: number };
        for (let i = 0; i < count && !context.signal.aborted; i++) {
          await new Promise((resolve) => setTimeout(resolve, everyMs));
          updater.addArtifact([{ text: `e${i}` }], { artifactId: 'a', append: i > 0, lastChunk: i === count - 1 });
        }
      }
      updater.complete();
    },
  };
}

export function oursOptions(baseUrl: string, mode: Mode, delayMs = 0): Pick<A2AServerOptions, 'card' | 'executor'> {
  return { card: card(baseUrl), executor: executor(mode, delayMs) };
}
