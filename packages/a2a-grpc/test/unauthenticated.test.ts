import { bearerAuth, createA2AClient } from '@a2aplane/a2a-client';
import { createAuthenticator, createStaticApiKeyVerifier, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { UnauthenticatedError } from '@a2aplane/a2a-types';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTransportFactory, type GrpcTransportFactory } from '../src/index.js';
import { baseCard, startAgent, type TestAgent, userMessage } from './helpers.js';

/**
 * Missing or invalid credentials (spec §3.3.2, §7.4, the enterprise topic): HTTP 401 with
 * `WWW-Authenticate` on both HTTP bindings, JSON-RPC included (its body keeps the JSON-RPC error),
 * gRPC `UNAUTHENTICATED`; and the client's one retry with fresh credentials fires on each binding.
 */
let agent: TestAgent;
let grpcTransports: GrpcTransportFactory;
beforeAll(async () => {
  const card = baseCard({ name: 'locked "agent"', securitySchemes: { token: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } });
  agent = await startAgent({
    card,
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.complete(`hi ${context.principal?.id}`);
      },
    },
    authenticate: createAuthenticator({
      securitySchemes: card.securitySchemes ?? {},
      bearer: createStaticApiKeyVerifier({ fresh: { id: 'alice', scheme: 'token' } }),
    }),
  });
  grpcTransports = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
});
afterAll(async () => {
  grpcTransports?.close();
  await agent?.close();
});

const CHALLENGE = 'Bearer realm="locked \\"agent\\""';

describe('the server refuses missing or invalid credentials as the spec says', () => {
  it.each([undefined, 'Bearer stale'])(
    'JSON-RPC: HTTP 401 with WWW-Authenticate and the JSON-RPC error (authorization %s)',
    async (authorization) => {
      const response = await fetch(`${agent.httpUrl}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage('hi') } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
      const body = (await response.json()) as { id: number; error: { code: number; data: Array<{ reason?: string }> } };
      expect(body.id).toBe(7);
      expect(body.error.code).toBe(-32000);
      expect(body.error.data.some((d) => d.reason === 'UNAUTHENTICATED')).toBe(true);
    },
  );

  it('REST: HTTP 401 with WWW-Authenticate', async () => {
    const response = await fetch(`${agent.httpUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer stale' },
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('a refusal that is not about credentials stays as it was (JSON-RPC: HTTP 200)', async () => {
    const response = await fetch(`${agent.httpUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: 'Bearer fresh' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

describe('the client retries once with fresh credentials', () => {
  it.each(BINDINGS)('%s: a refused token is refreshed once and the call succeeds', async (binding) => {
    let token = 'stale';
    let refreshes = 0;
    const client = createA2AClient({
      card: agent.card,
      transports: { GRPC: grpcTransports },
      preferredBindings: [binding],
      retry: { retries: 0 },
      auth: bearerAuth({
        getToken: () => token,
        refresh: () => {
          refreshes++;
          token = 'fresh';
        },
      }),
    });
    const result = await client.sendMessage({ message: userMessage('hi') });
    expect(result.task?.status?.message?.parts[0]).toEqual({ text: 'hi alice' });
    expect(refreshes).toBe(1);
  });

  it.each(BINDINGS)('%s: a token still refused after the one refresh fails with UnauthenticatedError', async (binding) => {
    let refreshes = 0;
    const client = createA2AClient({
      card: agent.card,
      transports: { GRPC: grpcTransports },
      preferredBindings: [binding],
      retry: { retries: 0 },
      auth: bearerAuth({ getToken: () => 'stale', refresh: () => void refreshes++ }),
    });
    await expect(client.sendMessage({ message: userMessage('hi') })).rejects.toSatisfy((e: unknown) => UnauthenticatedError.isInstance(e));
    expect(refreshes).toBe(1);
  });
});
