import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  type TaskEventRecord,
} from '@a2aplane/a2a-server-express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { createStaticKeyring } from '../src/push/keyring.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { POSTGRES_URL, startTcpProxy, type TcpProxy } from '@a2aplane/test-utils';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

let admin: pg.Pool;
let schema: string;
let proxy: TcpProxy;
let proxied: pg.Pool;
let server: A2AServer;
let http: Server;
let url: string;

beforeAll(async () => {
  admin = await connectTestPool('a2a-postgres outage');
  schema = await migratedSchema(admin, 'outage');
  const target = new URL(POSTGRES_URL);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(POSTGRES_URL);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  proxied = new pg.Pool({ connectionString: viaProxy.href, max: 4, connectionTimeoutMillis: 500 });
  proxied.on('error', () => undefined);
  server = createA2AServer({
    card: createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: 'outage',
      description: 'd',
      skills: [{ id: 's', name: 'S', description: 's', tags: [] }],
      capabilities: { streaming: true },
    }),
    executor: {
      async execute(context, events) {
        createTaskUpdater(context, events).complete();
      },
    },
    store: createPostgresTaskStore({
      pool: proxied,
      schema,
      pushConfigKeys: createStaticKeyring({ currentKeyId: 'k', keys: { k: randomBytes(32) } }),
      statementTimeoutMs: 1_000,
    }),
    eventBus: createPostgresTaskEventBus({ pool: proxied, schema, statementTimeoutMs: 1_000 }),
  });
  http = createServer(createNodeHttpHandler(server));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await proxy.close();
  await proxied.end().catch(() => undefined);
  await dropSchema(admin, schema);
  await admin.end();
});

describe('PostgreSQL down', () => {
  it('the replica answers 503 SERVICE_UNAVAILABLE (backend postgres) with Retry-After, stays up, and serves again when it is back', async () => {
    expect((await fetch(`${url}/a2a/rest/tasks`, { headers: { 'A2A-Version': '1.0' } })).status).toBe(200);
    await proxy.down();
    const response = await fetch(`${url}/a2a/rest/tasks`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { details: { reason?: string; metadata?: Record<string, unknown> }[] } };
    expect(body.error.details[0]).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', metadata: { backend: 'postgres' } });
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONN|at .*\.ts/);
    await proxy.up();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await fetch(`${url}/a2a/rest/tasks`, { headers: { 'A2A-Version': '1.0' } })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });

  it('an open stream outlives a short outage of its listening connection and gets what was published meanwhile', async () => {
    const replica = createPostgresTaskEventBus({ pool: proxied, schema, subscriberGiveUpMs: 10_000 });
    const publisher = createPostgresTaskEventBus({ pool: admin, schema });
    const key = { tenant: `t-${randomUUID()}`, taskId: randomUUID() };
    const status = (n: number, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED') => ({
      event: { statusUpdate: { taskId: key.taskId, contextId: 'c', status: { state }, metadata: { n } } },
      final: state === 'TASK_STATE_COMPLETED',
      revision: n,
    });
    await publisher.publish(key, status(1, 'TASK_STATE_WORKING'));
    const subscription = await replica.subscribe(key);
    if (!subscription) throw new Error('no subscription');
    const got: TaskEventRecord[] = [];
    const drained = (async () => {
      for await (const record of subscription) got.push(record);
    })();
    await proxy.down();
    // Published while this replica cannot hear anything.
    await publisher.publish(key, status(2, 'TASK_STATE_WORKING'));
    await publisher.publish(key, status(3, 'TASK_STATE_COMPLETED'));
    await new Promise((r) => setTimeout(r, 300));
    await proxy.up();
    await drained;
    expect(got.map((r) => r.event.statusUpdate?.metadata?.n)).toEqual([2, 3]);
    await replica.close();
    await publisher.close();
  });

  it('a longer outage ends open streams with PostgresUnavailableError after subscriberGiveUpMs (the client resumes with Last-Event-ID)', async () => {
    const replica = createPostgresTaskEventBus({ pool: proxied, schema, subscriberGiveUpMs: 300 });
    const key = { tenant: `t-${randomUUID()}`, taskId: randomUUID() };
    const subscription = await replica.subscribe(key);
    if (!subscription) throw new Error('no subscription');
    const ended = (async () => {
      for await (const _ of subscription) {
        // nothing is published
      }
    })();
    await proxy.down();
    await expect(ended).rejects.toMatchObject({ name: 'PostgresUnavailableError' });
    await proxy.up();
    await replica.close();
  });
});
