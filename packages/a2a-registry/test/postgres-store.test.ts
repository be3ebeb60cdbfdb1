import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPostgresRegistryStore, type PostgresRegistryStore } from '../src/postgres/index.js';
import { describeRegistryStoreContract, sampleAgentRecord } from '../src/testing/index.js';

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

describe('the PostgreSQL schema of an earlier version', () => {
  it('gains the skill and tag tables, filled from the agents already stored, and loses the GIN indexes', async () => {
    const schema = `registry_test_${randomBytes(6).toString('hex')}`;
    const store = await createPostgresRegistryStore({ pool, schema });
    try {
      await store.put(sampleAgentRecord({ id: 'old', skills: ['translate'], tags: ['language'] }), null);
      // What the earlier version had: no skill or tag rows, GIN indexes on the arrays.
      await pool.query(`DROP TABLE "${schema}".agent_skills; DROP TABLE "${schema}".agent_tags`);
      await pool.query(`CREATE INDEX agents_skills ON "${schema}".agents USING gin (skills)`);
      const migrated = await createPostgresRegistryStore({ pool, schema });
      expect((await migrated.search({ skill: 'translate' })).agents.map((agent) => agent.id)).toEqual(['old']);
      expect((await migrated.search({ tag: 'language' })).agents.map((agent) => agent.id)).toEqual(['old']);
      const indexes = await pool.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema]);
      expect(indexes.rows.map((row) => row.indexname)).not.toContain('agents_skills');
    } finally {
      await store.dropSchema();
    }
  });
});
