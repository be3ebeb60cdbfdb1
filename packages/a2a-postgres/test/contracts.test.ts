import {
  describeTaskAdmissionContract,
  describeTaskEventBusContract,
  describeTaskStoreContract,
} from '@a2aplane/a2a-server-express/testing';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../src/store/postgres-task-store.js';
import { testKeyring } from './keys.js';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

const vitest = { describe, it, afterEach };
let pool: pg.Pool;
let schema: string;

beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres contract suites (TaskStore, TaskEventBus)');
  schema = await migratedSchema(pool, 'contract');
});
afterAll(async () => {
  await dropSchema(pool, schema);
  await pool.end();
});

describeTaskStoreContract(
  'PostgreSQL task store',
  {
    create(limits) {
      // Tests use tenants of their own, so one schema serves every store of the run.
      return createPostgresTaskStore({ pool, schema, ttlMs: limits.terminalTtlMs, pushConfigKeys: testKeyring(), sweepIntervalMs: false });
    },
    dispose: (store) => (store as PostgresTaskStore).close(),
    // A database holds what its disk holds: the store bounds rows by TTLs and record size, not by a count (decision 0075).
    capacity: false,
  },
  vitest,
);

describeTaskAdmissionContract(
  'PostgreSQL task store',
  {
    create: ({ maxTasksPerOwner, maxBytesPerOwner }) =>
      createPostgresTaskStore({ pool, schema, pushConfigKeys: testKeyring(), sweepIntervalMs: false, maxTasksPerOwner, maxBytesPerOwner }),
    dispose: (store) => (store as PostgresTaskStore).close(),
    // No count of tasks on a database (decision 0075): only the per-caller shares refuse.
    capacity: false,
  },
  vitest,
);

describeTaskEventBusContract(
  'PostgreSQL bus (LISTEN/NOTIFY)',
  {
    create() {
      // Each connect is another replica: its own pool (its own listening session and lock).
      const pools: pg.Pool[] = [];
      return {
        async connect() {
          const replicaPool = await connectTestPool('a2a-postgres TaskEventBus contract', { max: 4 });
          pools.push(replicaPool);
          return createPostgresTaskEventBus({ pool: replicaPool, schema });
        },
        async dispose() {
          for (const replicaPool of pools) await replicaPool.end();
        },
      };
    },
  },
  vitest,
);
