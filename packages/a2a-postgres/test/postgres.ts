import { POSTGRES_URL, testSchema } from '@a2aplane/test-utils';
import pg from 'pg';
import { migrate } from '../src/migrate/migrate.js';

/**
 * A pool on the test database, or an error naming the suite and how to start PostgreSQL: a suite
 * that needs it fails loudly instead of skipping when none is there.
 */
export async function connectTestPool(suite: string, options: pg.PoolConfig = {}): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 8, connectionTimeoutMillis: 3_000, ...options });
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(
      `[${suite}] needs PostgreSQL at ${POSTGRES_URL.replace(/\/\/[^@/]*@/, '//***@')} and could not reach it (${error instanceof Error ? error.message : String(error)}). ` +
        'Start it: `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or set POSTGRES_URL.',
    );
  }
  return pool;
}

/** A fresh schema at the newest version. */
export async function migratedSchema(pool: pg.Pool, suite: string): Promise<string> {
  const schema = testSchema(suite);
  await migrate(pool, { schema });
  return schema;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
