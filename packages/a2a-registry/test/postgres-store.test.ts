import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, describe, it } from 'vitest';
import { createPostgresRegistryStore, type PostgresRegistryStore } from '../src/postgres/index.js';
import { describeRegistryStoreContract } from '../src/testing/index.js';

// The real PostgreSQL on 127.0.0.1 (database `test`); every store gets a schema of its own, dropped after.
const pool = new pg.Pool({ connectionString: process.env.REGISTRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', max: 4 });
afterAll(() => pool.end());

describeRegistryStoreContract(
  'PostgreSQL',
  {
    create: () => createPostgresRegistryStore({ pool, schema: `registry_test_${randomBytes(6).toString('hex')}` }),
    dispose: (store) => (store as PostgresRegistryStore).dropSchema(),
  },
  { describe, it, afterEach },
);
