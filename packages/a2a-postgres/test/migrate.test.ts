import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationError } from '../src/errors.js';
import { latestSchemaVersion, migrate } from '../src/migrate/migrate.js';
import { loadMigrations } from '../src/migrate/migrations.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { testKeyring } from './keys.js';
import { testSchema } from '@a2aplane/test-utils';
import { connectTestPool, dropSchema } from './postgres.js';

let pool: pg.Pool;
const schemas: string[] = [];
const fresh = (): string => {
  const schema = testSchema('migrate');
  schemas.push(schema);
  return schema;
};
const tables = async (schema: string): Promise<string[]> =>
  (
    await pool.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema])
  ).rows.map((r) => r.t);

beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres migrations');
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(pool, schema);
  await pool.end();
});

describe('migrate', () => {
  it('ships versions 1..n without a hole', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(versions).toEqual(Array.from({ length: latestSchemaVersion() }, (_, i) => i + 1));
    expect(latestSchemaVersion()).toBeGreaterThanOrEqual(2);
  });

  it('creates every table from an empty database, and a second run changes nothing', async () => {
    const schema = fresh();
    expect(await migrate(pool, { schema })).toEqual({ from: 0, version: 4, applied: [1, 2, 3, 4] });
    expect(await tables(schema)).toEqual([
      'a2a_migrations',
      'cancel_requests',
      'cancel_runners',
      'nonces',
      'push_configs',
      'push_outbox',
      'push_outbox_holders',
      'send_keys',
      'task_events',
      'task_logs',
      'tasks',
    ]);
    expect(await migrate(pool, { schema })).toEqual({ from: 4, version: 4, applied: [] });
  });

  it('upgrades a schema at version 1 holding tasks, keeping them', async () => {
    const schema = fresh();
    expect(await migrate(pool, { schema, to: 1 })).toEqual({ from: 0, version: 1, applied: [1] });
    expect(await tables(schema)).not.toContain('nonces');
    const keys = testKeyring();
    const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: keys, sweepIntervalMs: false });
    const key = { tenant: 't', taskId: 'a' };
    // Written as version 1's store wrote it (today's statements need the columns of version 4).
    await pool.query(
      `INSERT INTO "${schema}".tasks (tenant, task_id, owner, context_id, state, status_time, updated_at, expires_at, terminal, revision, task)
       VALUES ('t', 'a', 'o', 'c', 'TASK_STATE_WORKING', 1, 1, $1, false, 1, $2)`,
      [Date.now() + 60_000, JSON.stringify({ id: 'a', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } })],
    );
    await store.putPushConfig(key, { id: 'p', taskId: 'a', url: 'https://example.com/hook', token: 'secret' });
    expect(await migrate(pool, { schema })).toEqual({ from: 1, version: 4, applied: [2, 3, 4] });
    expect(await tables(schema)).toContain('nonces');
    expect((await store.get(key))?.revision).toBe(1);
    expect(await store.listPushConfigs(key)).toEqual([{ id: 'p', taskId: 'a', url: 'https://example.com/hook', token: 'secret' }]);
    expect(
      await store.upsert(
        { tenant: 't', owner: 'o', updatedAt: Date.now(), task: { id: 'a', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
        { expectedRevision: 1 },
      ),
    ).toBe(2);
  });

  it("upgrades a schema at version 3 holding a live task: its bytes count in its caller's share from then on", async () => {
    const schema = fresh();
    await migrate(pool, { schema, to: 3 });
    const keys = testKeyring();
    const text = 'x'.repeat(5_000);
    const live = {
      id: 'a',
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING' as const },
      artifacts: [{ artifactId: 'o', parts: [{ text }] }],
    };
    // Version 3 has no bytes column: the old store's statement cannot run, so the row is written as version 3 would.
    await pool.query(
      `INSERT INTO "${schema}".tasks (tenant, task_id, owner, context_id, state, status_time, updated_at, expires_at, terminal, revision, task)
       VALUES ('t', 'a', 'o', 'c', 'TASK_STATE_WORKING', 1, 1, $1, false, 1, $2)`,
      [Date.now() + 60_000, JSON.stringify(live)],
    );
    expect(await migrate(pool, { schema })).toEqual({ from: 3, version: latestSchemaVersion(), applied: [4] });
    expect(await tables(schema)).toContain('push_outbox');
    const after = createPostgresTaskStore({ pool, schema, pushConfigKeys: keys, sweepIntervalMs: false, maxBytesPerOwner: 6_000 });
    await expect(after.admitTask?.({ tenant: 't', owner: 'o' })).resolves.toBeUndefined();
    await expect(
      after.upsert({ tenant: 't', owner: 'o', updatedAt: Date.now(), task: { ...live, id: 'b' } }, { expectedRevision: 0 }),
    ).rejects.toMatchObject({ limit: 'maxBytesPerOwner' });
    expect((await after.get({ tenant: 't', taskId: 'a' }))?.revision).toBe(1);
    after.close();
  });

  it('runs once when replicas migrate at the same time', async () => {
    const schema = fresh();
    const results = await Promise.all([0, 1, 2, 3].map(() => migrate(pool, { schema })));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect(results.every((r) => r.version === latestSchemaVersion())).toBe(true);
  });

  it('refuses a schema newer than the package, and one whose applied SQL changed, changing nothing', async () => {
    const newer = fresh();
    await migrate(pool, { schema: newer });
    await pool.query(`INSERT INTO "${newer}".a2a_migrations (version, name, checksum) VALUES (99, 'future', 'x')`);
    await expect(migrate(pool, { schema: newer })).rejects.toBeInstanceOf(MigrationError);
    const changed = fresh();
    await migrate(pool, { schema: changed, to: 1 });
    await pool.query(`UPDATE "${changed}".a2a_migrations SET checksum = 'edited' WHERE version = 1`);
    await expect(migrate(pool, { schema: changed })).rejects.toThrow(/different SQL/);
    expect(await tables(changed)).not.toContain('nonces');
  });

  it('checks its arguments', async () => {
    await expect(migrate(pool, { schema: 'Robert"); DROP TABLE x; --' })).rejects.toBeInstanceOf(TypeError);
    await expect(migrate(pool, { schema: fresh(), to: latestSchemaVersion() + 1 })).rejects.toBeInstanceOf(RangeError);
  });

  it('fails with PostgresUnavailableError when the database is not there', async () => {
    const nowhere = new pg.Pool({ host: '127.0.0.1', port: 1, user: 'postgres', database: 'test', connectionTimeoutMillis: 1_000 });
    await expect(migrate(nowhere, { schema: fresh() })).rejects.toMatchObject({ name: 'PostgresUnavailableError' });
    await nowhere.end();
  });
});
