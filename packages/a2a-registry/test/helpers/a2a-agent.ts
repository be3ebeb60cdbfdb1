import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpSignatureVerifier,
  createJwks,
  generateKeyPair,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  createTaskUpdater,
  verifyEd25519,
} from '@a2aplane/a2a-server-express';
import type { AgentSkill } from '@a2aplane/a2a-types';

const echo: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    task.addArtifact([{ text: context.message.parts.map((part) => part.text ?? '').join(' ') }], { name: 'echo' });
    task.complete();
  },
};

export interface TestAgent {
  url: string;
  agentId: string;
  key: KeyPair;
  cardText: string;
  close(): Promise<void>;
}

/** A real A2A v1.0 agent (our server over node:http), its card signed by its own key. */
export async function startA2AAgent(
  options: { skills?: AgentSkill[]; key?: KeyPair; name?: string; callerKeys?: KeyPair[] } = {},
): Promise<TestAgent> {
  const key = options.key ?? generateKeyPair('EdDSA');
  const agentId = agentIdFromPublicKey(key.publicKey);
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = withAgentIdExtension(
    createAgentCard({
      baseUrl: url,
      name: options.name ?? 'echo',
      description: 'echoes text',
      skills: options.skills ?? [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['text'] }],
    }),
    agentId,
  );
  const signer = { sign: (c: typeof card) => signAgentCard(c, key, { jku: `${url}/.well-known/jwks.json` }) };
  const cardText = signer.sign(card).json;
  // With callerKeys: signed callers only (RFC 9421), as an agent behind the registry's trust would be.
  const authenticate = options.callerKeys
    ? createHttpSignatureAuthenticator({
        verifier: createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: options.callerKeys }), verifyEd25519 }),
      })
    : undefined;
  const server = createA2AServer({ card, executor: echo, ...(authenticate ? { authenticate } : {}) });
  const handler = createNodeHttpHandler(server, { cardSigner: signer, jwks: createJwks([key]) });
  http.on('request', (req, res) => void handler(req, res));
  return {
    url,
    agentId,
    key,
    cardText,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
