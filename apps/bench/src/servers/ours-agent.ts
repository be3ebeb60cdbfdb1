import { type AgentCard, DEFAULT_JSON_RPC_PATH } from '@a2aplane/a2a-types';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import {
  type A2AServerOptions,
  type AgentExecutor,
  type InMemoryTaskStore,
  type TaskStore,
  createA2AServer,
  createNodeHttpHandler,
  createTaskUpdater,
  createInMemoryTaskStore,
} from '@a2aplane/a2a-server-express';
import { type Mode, parseServerArgs, replyText, serve } from './common.js';

export function card(baseUrl: string): AgentCard {
  return {
    name: 'bench-ours',
    description: 'a2aplane server under benchmark',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${baseUrl}${DEFAULT_JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
  } as AgentCard;
}

/** The executor of every "ours" server: one Message, or a task with one text artifact, or a stream of events. */
export function executor(mode: Mode, events: number, delayMs = 0): AgentExecutor {
  return {
    async execute(context, sink) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const first = context.message.parts[0];
      const text = first && 'text' in first && typeof first.text === 'string' ? first.text : '';
      if (mode === 'message') {
        sink.publish({
          messageId: globalThis.crypto.randomUUID(),
          contextId: context.contextId,
          role: 'ROLE_AGENT',
          parts: [{ text: replyText(text) }],
        });
        return;
      }
      const updater = createTaskUpdater(context, sink);
      updater.submit();
      updater.startWork();
      if (mode === 'task') {
        updater.addArtifact([{ text: replyText(text) }], { artifactId: 'a-1' });
      } else {
        // submitted + working + chunks + completed = `events` events.
        const chunks = Math.max(1, events - 3);
        for (let i = 0; i < chunks; i++) {
          updater.addArtifact([{ text: `chunk ${i}` }], { artifactId: 'a-1', append: i > 0, lastChunk: i === chunks - 1 });
        }
      }
      updater.complete();
    },
  };
}

export function oursOptions(baseUrl: string, mode: Mode, events: number, store: TaskStore, delayMs = 0): A2AServerOptions {
  return { card: card(baseUrl), executor: executor(mode, events, delayMs), store };
}

/** Tasks held by our default in-memory store (a private map; read for the memory report only). */
export function countStored(store: InMemoryTaskStore): number {
  return (store as unknown as { entries: Map<string, unknown> }).entries.size;
}

/**
 * Serves our server on bare node:http (createNodeHttpHandler, default store) with the bench's card and
 * executor plus `extra` (governance, an authenticator, instrumentation): the one setup of every
 * `ours*` node:http target, so that they differ only in what they pass.
 */
export function serveOursOnNodeHttp(extra: Partial<A2AServerOptions> = {}): void {
  const args = parseServerArgs();
  const store = createInMemoryTaskStore();
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  serve(
    createServer((req, res) => handler(req, res)),
    args,
    () => countStored(store),
    (baseUrl) => {
      const a2a = createA2AServer({ ...oursOptions(baseUrl, args.mode, args.events, store, args.delayMs), ...extra });
      handler = createNodeHttpHandler(a2a, { heartbeatMs: 0 });
    },
  );
}
