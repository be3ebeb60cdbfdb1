import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest, type Task as SdkTask } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  generateKeyPair,
} from '@a2aplane/a2a-identity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, createHttpSignatureAuthenticator, createStaticApiKeyVerifier } from '../../src/auth/index.js';
import { type A2AServer, createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '../../src/index.js';

/**
 * The official client (unsigned, API key) against a server that also accepts RFC 9421 signed
 * callers: signing is an addition, never a requirement for peers that do not sign.
 */

const signedCaller = generateKeyPair('EdDSA');
let httpServer: Server;
let a2a: A2AServer;
let baseUrl: string;

beforeAll(async () => {
  httpServer = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const securitySchemes = { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };
  a2a = createA2AServer({
    card: createAgentCard({
      baseUrl,
      name: 'interop-signed',
      description: 'API key or signed callers',
      skills: [{ id: 'echo', name: 'echo', description: 'Echoes', tags: [] }],
      securitySchemes,
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.complete(`hello ${context.principal?.agentId ?? context.principal?.id ?? 'nobody'}`);
      },
    },
    authenticate: createHttpSignatureAuthenticator({
      verifier: createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [signedCaller] }) }),
      fallback: createAuthenticator({
        securitySchemes,
        apiKey: createStaticApiKeyVerifier({ 'key-alice': { id: 'alice', scheme: 'key' } }),
      }),
    }),
  });
  httpServer.on('request', createNodeHttpHandler(a2a));
});

afterAll(async () => {
  await a2a?.close();
  httpServer?.closeAllConnections();
  await new Promise<void>((resolve) => httpServer?.close(() => resolve()));
});

const hello = () =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } });

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('official @a2a-js/sdk client with an API key over %s', (binding) => {
  let client: Client;
  beforeAll(async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(baseUrl);
  });

  it('is served as its API-key principal', async () => {
    const result = await client.sendMessage(hello(), { serviceParameters: { 'X-API-Key': 'key-alice' } });
    const task = result as unknown as SdkTask & { status: { message?: { parts: Array<{ text?: string; content?: { text?: string } }> } } };
    expect(JSON.stringify(task)).toContain('hello alice');
  });

  it('without its key it is refused', async () => {
    await expect(client.sendMessage(hello())).rejects.toBeDefined();
  });
});

describe('next to it, a signed caller on the same server', () => {
  it('is served as its AgentID', async () => {
    const url = `${baseUrl}/a2a/jsonrpc`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    });
    const headers = await createHttpRequestSigner({ key: signedCaller }).sign({ method: 'POST', url, body });
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect(await response.text()).toContain(`hello ${agentIdFromPublicKey(signedCaller.publicKey)}`);
  });
});
