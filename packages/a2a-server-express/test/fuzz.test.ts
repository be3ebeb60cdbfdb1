import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoExecutor, startServer, type TestServer } from './helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ executor: echoExecutor });
});
afterAll(async () => {
  await server.close();
});

const METHODS = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask', 'CreateTaskPushNotificationConfig', 'GetExtendedAgentCard', 'Nope', 'message/send'];

const jsonRpcBody = fc.oneof(
  fc.string(),
  fc.json(),
  fc.record({
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 300 }), fc.constant(null), fc.double(), fc.object()),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
    params: fc.oneof(fc.object(), fc.anything(), fc.record({ message: fc.anything(), id: fc.anything(), pageSize: fc.anything() })),
  }).map((value) => JSON.stringify(value)),
);

const restPath = fc.oneof(
  fc.constantFrom('/message:send', '/tasks', '/tasks/x', '/tasks/x:cancel', '/tasks/x:subscribe', '/extendedAgentCard', '/t/tasks/%ZZ', '/tasks/x/pushNotificationConfigs'),
  fc.webPath(),
);

describe('fuzz: malformed requests always get a well-formed error', () => {
  it('JSON-RPC: every response is a JSON-RPC object, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(jsonRpcBody, async (body) => {
        const response = await fetch(`${server.url}/a2a/jsonrpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body,
        });
        if (response.status === 204) return;
        const json = (await response.json()) as Record<string, unknown>;
        expect(json.jsonrpc).toBe('2.0');
        if (json.error) {
          const error = json.error as { code: number; message: string };
          expect(typeof error.code).toBe('number');
          expect(error.message).not.toMatch(/at .*\.ts:\d+/);
        }
      }),
      { numRuns: 1500 },
    );
  }, 120_000);

  it('REST: every non-2xx response carries a §11.6 error body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
        restPath,
        fc.option(fc.oneof(fc.json(), fc.string()), { nil: undefined }),
        fc.webQueryParameters(),
        async (verb, path, body, query) => {
          const response = await fetch(`${server.url}/a2a/rest${path}${query ? `?${query}` : ''}`, {
            method: verb,
            headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
            ...(body !== undefined && verb !== 'GET' ? { body } : {}),
          });
          if (response.headers.get('content-type')?.includes('text/event-stream')) {
            await response.body?.cancel();
            return;
          }
          const text = await response.text();
          if (response.status >= 400) {
            const json = JSON.parse(text) as { error: { code: number; status: string; details: unknown[] } };
            expect(json.error.code).toBe(response.status);
            expect(typeof json.error.status).toBe('string');
            expect(Array.isArray(json.error.details)).toBe(true);
          }
        },
      ),
      { numRuns: 1500 },
    );
    // The process is still up and serving.
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(200);
  }, 120_000);
});
