import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  generateKeyPair,
} from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createAuthenticator,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  createStaticApiKeyVerifier,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuth, createA2AClient } from '../src/index.js';

const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
let http: Server;
let a2a: A2AServer;
let baseUrl = '';

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const securitySchemes = { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };
  a2a = createA2AServer({
    card: createAgentCard({
      baseUrl,
      name: 'verified',
      description: 'knows its callers',
      skills: [],
      securitySchemes,
      capabilities: { streaming: true },
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.startWork('working');
        task.complete(`hello ${context.principal?.agentId ?? context.principal?.id ?? 'nobody'}`);
      },
    },
    authenticate: createHttpSignatureAuthenticator({
      verifier: createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [caller] }) }),
      fallback: createAuthenticator({
        securitySchemes,
        apiKey: createStaticApiKeyVerifier({ 'k-1': { id: 'api-key-peer', scheme: 'key' } }),
      }),
    }),
  });
  http.on('request', createNodeHttpHandler(a2a, { heartbeatMs: 0 }));
});

afterAll(async () => {
  await a2a.close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const hello = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } });

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('a2a-client signs its calls when given a key (%s)', (binding) => {
  it('send, get, list and a stream: every call is verified as the caller AgentID', async () => {
    const client = createA2AClient({ baseUrl, preferredBindings: [binding], auth: createHttpRequestSigner({ key: caller }) });
    const sent = await client.sendMessage(hello());
    expect(sent.task?.status.message?.parts[0]?.text).toBe(`hello ${callerId}`);
    const got = await client.getTask({ id: sent.task!.id });
    expect(got.id).toBe(sent.task!.id);
    const listed = await client.listTasks({});
    expect(listed.tasks.map((t) => t.id)).toContain(sent.task!.id);
    const events = [];
    for await (const event of client.sendStreamingMessage(hello())) events.push(event);
    expect(JSON.stringify(events.at(-1))).toContain(`hello ${callerId}`);
  });

  it('a retried request is signed afresh (a new nonce), so the server does not see a replay', async () => {
    const seen: string[] = [];
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.url.includes('/a2a/')) {
        seen.push(request.headers.get('signature-input') ?? '');
        if (calls++ === 0) throw new TypeError('network down');
      }
      return fetch(request);
    };
    const client = createA2AClient({
      baseUrl,
      fetch: flaky,
      preferredBindings: [binding],
      retry: { retries: 1, initialDelayMs: 1, maxDelayMs: 1 },
      auth: createHttpRequestSigner({ key: caller }),
    });
    expect((await client.sendMessage(hello())).task?.status.message?.parts[0]?.text).toBe(`hello ${callerId}`);
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen.every((input) => input.includes(`keyid="${callerId}"`))).toBe(true);
  });

  it('a peer that does not sign keeps working with an API key', async () => {
    const client = createA2AClient({
      baseUrl,
      preferredBindings: [binding],
      auth: apiKeyAuth({ name: 'X-API-Key', value: 'k-1', location: 'header' }),
    });
    expect((await client.sendMessage(hello())).task?.status.message?.parts[0]?.text).toBe('hello api-key-peer');
  });

  it('an interceptor that alters the signed body after signing is refused', async () => {
    const client = createA2AClient({
      baseUrl,
      preferredBindings: [binding],
      retry: { retries: 0 },
      auth: createHttpRequestSigner({ key: caller }),
      interceptors: {
        beforeRequest: (request) => {
          request.body = request.body?.replace('"hi"', '"tampered"');
        },
      },
    });
    const error = (await client.sendMessage(hello()).catch((e: unknown) => e)) as { reason?: string; status?: number };
    expect(error.reason === 'UNAUTHENTICATED' || error.status === 401, JSON.stringify(error)).toBe(true);
  });
});
