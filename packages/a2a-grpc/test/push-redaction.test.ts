import { createA2AClient } from '@a2aplane/a2a-client';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTransportFactory, type GrpcTransportFactory } from '../src/index.js';
import { startAgent, type TestAgent, userMessage } from './helpers.js';

/**
 * docs/identity.md: a push config's credentials (`token`, `authentication.credentials`) are stored
 * for deliveries and never read back: Get and List answer without them on every binding, the
 * authentication scheme kept (A2A#1988).
 */
const executor: AgentExecutor = {
  async execute(context, events) {
    createTaskUpdater(context, events).submit();
  },
};

let agent: TestAgent;
let grpcTransports: GrpcTransportFactory;
beforeAll(async () => {
  agent = await startAgent({ executor });
  grpcTransports = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
});
afterAll(async () => {
  grpcTransports?.close();
  await agent?.close();
});

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)('push config credentials over %s', (binding) => {
  it('are redacted when the config is read back (Get, List)', async () => {
    const client = createA2AClient({
      card: agent.card,
      transports: { GRPC: grpcTransports },
      preferredBindings: [binding],
      retry: { retries: 0 },
    });
    const sent = await client.sendMessage({ message: userMessage('hi') });
    const taskId = sent.task?.id as string;
    const created = await client.createTaskPushNotificationConfig({
      taskId,
      url: 'https://hooks.example.com/a2a',
      token: 'secret-token',
      authentication: { scheme: 'Bearer', credentials: 'secret-credentials' },
    });
    const expected = { id: created.id, taskId, url: 'https://hooks.example.com/a2a', authentication: { scheme: 'Bearer' } };
    const got = await client.getTaskPushNotificationConfig({ taskId, id: created.id as string });
    const listed = await client.listTaskPushNotificationConfigs({ taskId });
    expect(got).toEqual(expected);
    expect(listed.configs).toEqual([expected]);
    expect(JSON.stringify([got, listed])).not.toMatch(/secret-/);
  });
});
