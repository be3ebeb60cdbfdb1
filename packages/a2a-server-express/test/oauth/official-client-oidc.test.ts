import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageRequest, type Task as SdkTask, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, createJwtVerifier } from '../../src/auth/index.js';
import { type A2AServer, createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '../../src/index.js';
import { clientCredentialsToken, startIdentityProvider, type TestIdentityProvider } from '../helpers/oidc-provider.js';

/**
 * The official client sends a bearer token obtained from a real OpenID provider (client
 * credentials); our server verifies it from the card's openIdConnect scheme and checks the
 * skill's scopes (spec §4.4.5 skill securityRequirements).
 */

let idp: TestIdentityProvider;
let httpServer: Server;
let a2a: A2AServer;
let baseUrl: string;

beforeAll(async () => {
  idp = await startIdentityProvider();
  httpServer = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const securitySchemes = { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } };
  const securityRequirements = [{ schemes: { oidc: { list: [] } } }];
  const card = createAgentCard({
    baseUrl,
    name: 'oidc-agent',
    description: 'OIDC-protected agent',
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'Echoes',
        tags: [],
        securityRequirements: [{ schemes: { oidc: { list: ['skill:echo'] } } }],
      },
      {
        id: 'admin',
        name: 'admin',
        description: 'Admin',
        tags: [],
        securityRequirements: [{ schemes: { oidc: { list: ['skill:admin'] } } }],
      },
    ],
    securitySchemes,
    securityRequirements,
  });
  a2a = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const updater = createTaskUpdater(context, events);
        updater.submit();
        updater.complete(`hello ${context.principal?.id ?? 'nobody'} (${context.principal?.scopes?.join(',')})`);
      },
    },
    authenticate: createAuthenticator({
      securitySchemes,
      securityRequirements,
      openIdConnect: createJwtVerifier({ securitySchemes, audience: idp.audience, allowInsecureLoopback: true }),
    }),
  });
  httpServer.on('request', createNodeHttpHandler(a2a));
});

afterAll(async () => {
  await a2a?.close();
  httpServer?.closeAllConnections();
  await new Promise<void>((resolve) => httpServer?.close(() => resolve()));
  await idp?.close();
});

const send = (skillId: string) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { skillId } },
  });
const as = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

interface SdkFailure {
  message: string;
  statusCode?: number;
  data?: unknown;
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: SdkFailure) => error,
  );
function reasons(error: SdkFailure | undefined): unknown[] {
  return Array.isArray(error?.data) ? (error.data as { reason?: string }[]).map((info) => info.reason) : [];
}

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('official client with an OIDC bearer token over %s', (binding) => {
  let client: Client;
  beforeAll(async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(baseUrl);
  });

  it('is served with the token subject and scopes handed to the executor', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo');
    const task = (await client.sendMessage(send('echo'), as(token))) as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: `hello ${idp.clientId} (skill:echo)` });
  });

  it('refuses a token for another skill scope as FORBIDDEN', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo');
    const error = await failure(client.sendMessage(send('admin'), as(token)));
    if (binding === 'JSONRPC') expect(reasons(error)).toContain('FORBIDDEN');
    else expect(error?.statusCode).toBe(403);
  });

  it('refuses a token for another audience as UNAUTHENTICATED', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo skill:admin', 'https://other.example/api');
    const error = await failure(client.sendMessage(send('echo'), as(token)));
    if (binding === 'JSONRPC') expect(reasons(error)).toContain('UNAUTHENTICATED');
    else expect(error?.statusCode).toBe(401);
  });

  it('serves the admin skill to a token that holds its scope', async () => {
    const token = await clientCredentialsToken(idp, 'skill:admin');
    const task = (await client.sendMessage(send('admin'), as(token))) as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
