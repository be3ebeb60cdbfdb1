import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2AServer, createAgentCard, createNodeHttpHandler, type TaskCommit } from '@a2aplane/a2a-server-express';
import { countingExecutor, refusedSendsScenario } from '@a2aplane/test-utils';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { testKeyring } from './keys.js';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

let pool: pg.Pool;
let schema: string;
beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres refused sends');
  schema = await migratedSchema(pool, 'refused');
});
afterAll(async () => {
  await dropSchema(pool, schema);
  await pool.end();
});

describe('a refused SendMessage runs nothing on PostgreSQL (issue 31 items 4 and 5)', () => {
  it("a caller past its live-task share is refused with the share's reason, and nothing runs", async () => {
    const counting = countingExecutor();
    const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: testKeyring(), sweepIntervalMs: false, maxTasksPerOwner: 1 });
    const eventBus = createPostgresTaskEventBus({ pool, schema });
    const server = createA2AServer({
      card: createAgentCard({
        baseUrl: 'http://127.0.0.1',
        name: 'refused',
        description: 'counts its executions',
        skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
      }),
      executor: counting.executor,
      store,
      eventBus,
    });
    const http: Server = createServer(createNodeHttpHandler(server));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a/jsonrpc`;
    try {
      await refusedSendsScenario({ url, counting, limit: 'maxTasksPerOwner', refusals: 20, message: /share of the store/ });
    } finally {
      counting.release();
      await server.close();
      await eventBus.close();
      store.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('the bus commit (write and events in one statement) refuses past the share as the store does, appending nothing', async () => {
    const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: testKeyring(), sweepIntervalMs: false, maxTasksPerOwner: 1 });
    const bus = createPostgresTaskEventBus({ pool, schema });
    try {
      const commit = bus.committerFor?.(store) as TaskCommit;
      expect(commit).toBeTypeOf('function');
      const record = (taskId: string) => ({
        tenant: 'commit-share',
        owner: 'o',
        updatedAt: Date.now(),
        task: { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } },
      });
      const event = (taskId: string) => ({ event: { task: record(taskId).task }, final: false });
      await commit(record('one'), { expectedRevision: 0 }, [event('one')]);
      await expect(commit(record('two'), { expectedRevision: 0 }, [event('two')])).rejects.toMatchObject({ limit: 'maxTasksPerOwner' });
      expect(await store.get({ tenant: 'commit-share', taskId: 'two' })).toBeUndefined();
      expect((await bus.read({ tenant: 'commit-share', taskId: 'two' }))?.events ?? []).toEqual([]);
    } finally {
      await bus.close();
      store.close();
    }
  });
});
