import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  type KeyPair,
  generateKeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import { type A2AServer, createA2AServer, createAgentCard, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import { createEchoExecutor } from './echo-executor.js';

export interface EchoAgent {
  /** Base URL, such as `http://127.0.0.1:41234`. */
  url: string;
  agentId: string;
  key: KeyPair;
  server: A2AServer;
  close(): Promise<void>;
}

export interface StartEchoAgentOptions {
  host?: string;
  port?: number;
  key?: KeyPair;
  wordDelayMs?: number;
}

/** Starts the echo agent: a signed card with its AgentID, streaming and cancel, on node:http. */
export async function startEchoAgent(options: StartEchoAgentOptions = {}): Promise<EchoAgent> {
  const key = options.key ?? generateKeyPair('EdDSA');
  const agentId = agentIdFromPublicKey(key.publicKey);
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { address, port } = http.address() as AddressInfo;
  const url = `http://${address}:${port}`;
  const card = withAgentIdExtension(
    createAgentCard({
      baseUrl: url,
      name: 'Echo Agent',
      description: 'Streams your message back, word by word.',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the input text.', tags: ['echo', 'example'] }],
    }),
    agentId,
  );
  const server = createA2AServer({ card, executor: createEchoExecutor({ wordDelayMs: options.wordDelayMs ?? 0 }) });
  http.on('request', createNodeHttpHandler(server, { cardSigner: { sign: (c) => signAgentCard(c, key) } }));
  return {
    url,
    agentId,
    key,
    server,
    close: async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
