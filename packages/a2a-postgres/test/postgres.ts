import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../src/migrate/migrate.js';

/** The PostgreSQL the tests use: `POSTGRES_URL`, default `postgres://postgres@127.0.0.1:5432/test`. */
export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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

/** A schema name of its own per run and suite, so parallel runs never collide. */
export function testSchema(suite: string): string {
  return `t_${suite}_${process.pid}_${randomBytes(4).toString('hex')}`.toLowerCase().slice(0, 48);
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
