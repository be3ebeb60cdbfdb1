import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetTaskRequest, SendMessageRequest, type Task as SdkTask, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, createStaticApiKeyVerifier } from '../../src/auth/index.js';
import { type A2AServer, createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '../../src/index.js';
import { createTokenBucketRateLimiter } from '../../src/limits/index.js';

/**
 * The official client against a server that requires a bearer token (spec §7.3-§7.4) and
 * rate-limits each principal (token bucket, fake clock so refill is deterministic).
 */

let httpServer: Server;
let a2a: A2AServer;
let baseUrl: string;
let now = 0;

beforeAll(async () => {
  httpServer = createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } };
  const securityRequirements = [{ schemes: { bearer: { list: [] } } }];
  const card = createAgentCard({
    baseUrl,
    name: 'interop-auth',
    description: 'Bearer-protected echo agent',
    skills: [{ id: 'echo', name: 'echo', description: 'Echoes', tags: [] }],
    securitySchemes,
    securityRequirements,
  });
  a2a = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const updater = createTaskUpdater(context, events);
        updater.submit();
        updater.complete(`hello ${context.principal?.id ?? 'nobody'}`);
      },
    },
    authenticate: createAuthenticator({
      securitySchemes,
      securityRequirements,
      bearer: createStaticApiKeyVerifier({
        'token-alice': { id: 'alice', scheme: 'bearer' },
        'token-bob': { id: 'bob', scheme: 'bearer' },
      }),
    }),
    rateLimiter: createTokenBucketRateLimiter({ capacity: 3, refillPerSecond: 1, clock: () => now }),
  });
  httpServer.on('request', createNodeHttpHandler(a2a));
});

afterAll(async () => {
  await a2a?.close();
  httpServer?.closeAllConnections();
  await new Promise<void>((resolve) => httpServer?.close(() => resolve()));
});

function hello(): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
}

const as = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

interface SdkFailure {
  reason?: string;
  message: string;
  /** REST errors: the HTTP status. */
  statusCode?: number;
  /** JSON-RPC errors the SDK does not map: the raw `error.data`. */
  data?: unknown;
}

async function failure(promise: Promise<unknown>): Promise<SdkFailure | undefined> {
  return promise.then(
    () => undefined,
    (error: SdkFailure) => error,
  );
}

/**
 * The SDK maps only the spec's A2A reasons to classes. UNAUTHENTICATED and RATE_LIMITED are
 * a2aplane control-plane reasons: over JSON-RPC they arrive as the raw ErrorInfo in `error.data`,
 * over REST as the HTTP status (spec §7.4: binding-specific codes).
 */
function expectControlPlaneError(error: SdkFailure | undefined, binding: string, reason: string, httpStatus: number): void {
  expect(error).toBeDefined();
  if (binding === 'JSONRPC') {
    const infos = Array.isArray(error?.data) ? (error.data as { reason?: string }[]) : [];
    expect(infos.map((info) => info.reason)).toContain(reason);
  } else {
    expect(error?.statusCode).toBe(httpStatus);
  }
}

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('official client, auth and rate limits over %s', (binding) => {
  let client: Client;
  beforeAll(async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(baseUrl);
  });

  it('the public card advertises the bearer scheme (spec §7.3 step 1)', async () => {
    const card = await client.getAgentCard();
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
  });

  it('rejects a request without credentials as UNAUTHENTICATED', async () => {
    now += 60_000;
    const error = await failure(client.sendMessage(hello()));
    expectControlPlaneError(error, binding, 'UNAUTHENTICATED', 401);
    expect(error?.message).toBe('Credentials are required.');
  });

  it('rejects a wrong token as UNAUTHENTICATED', async () => {
    now += 60_000;
    const error = await failure(client.sendMessage(hello(), as('token-mallory')));
    expectControlPlaneError(error, binding, 'UNAUTHENTICATED', 401);
    expect(error?.message).not.toContain('token-mallory');
  });

  it('serves a valid token and hands the principal to the executor', async () => {
    now += 60_000;
    const task = (await client.sendMessage(hello(), as('token-alice'))) as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'hello alice' });
  });

  it('keeps tasks private to their principal', async () => {
    now += 60_000;
    const task = (await client.sendMessage(hello(), as('token-alice'))) as SdkTask;
    const error = await failure(client.getTask(GetTaskRequest.fromJSON({ id: task.id }), as('token-bob')));
    expect(error?.reason).toBe('TASK_NOT_FOUND');
  });

  it('rate-limits a principal after its burst and recovers after refill', async () => {
    now += 60_000;
    for (let i = 0; i < 3; i++) await client.sendMessage(hello(), as('token-bob'));
    const error = await failure(client.sendMessage(hello(), as('token-bob')));
    expectControlPlaneError(error, binding, 'RATE_LIMITED', 429);
    // Another principal has its own bucket.
    await expect(client.sendMessage(hello(), as('token-alice'))).resolves.toBeDefined();
    now += 1000;
    await expect(client.sendMessage(hello(), as('token-bob'))).resolves.toBeDefined();
  });
});
