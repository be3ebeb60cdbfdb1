import type { Pool } from 'pg';
import { MigrationError } from '../errors.js';
import { DEFAULT_SCHEMA, quoteSchema, toUnavailable, transaction } from '../sql.js';
import { loadMigrations } from './migrations.js';

export interface MigrateOptions {
  /** The schema to create or upgrade; one per deployment (every replica of an agent uses the same). Default `a2a`. */
  schema?: string;
  /** Stop at this version (default: the newest shipped). Going down is not supported. */
  to?: number;
}

export interface MigrateResult {
  /** The schema's version before the call (`0`: it had none). */
  from: number;
  /** Its version now. */
  version: number;
  /** Versions applied by this call, oldest first (empty: it was up to date). */
  applied: number[];
}

/** Namespace of the advisory lock that serialises migrations (the second key is the schema's hash). */
const LOCK_NAMESPACE = 0x61326170; // "a2ap"

/**
 * Creates or upgrades the package's tables in `schema` to the newest shipped version (or `to`):
 * one transaction under an advisory lock, so replicas starting together migrate once and the
 * others wait and find nothing to do; a failure leaves the schema as it was. Idempotent. Each
 * applied version is recorded in `a2a_migrations` with the SHA-256 of its SQL; a recorded version
 * whose SQL changed since, or a schema newer than this package knows, is refused with
 * `MigrationError` (nothing changed).
 */
export async function migrate(pool: Pick<Pool, 'connect'>, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const migrations = loadMigrations();
  const newest = migrations.length;
  const target = options.to ?? newest;
  if (!(Number.isSafeInteger(target) && target >= 1 && target <= newest)) {
    throw new RangeError(`expected to between 1 and ${newest}, got ${target}`);
  }
  try {
    return await transaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_NAMESPACE, schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`SET LOCAL search_path TO ${quoted}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS a2a_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number; checksum: string }>(
        'SELECT version, checksum FROM a2a_migrations ORDER BY version',
      );
      const from = rows.at(-1)?.version ?? 0;
      if (from > newest) {
        throw new MigrationError(
          `schema ${schema} is at version ${from}, newer than this package knows (${newest}); upgrade @a2aplane/a2a-postgres`,
        );
      }
      for (const row of rows) {
        if (migrations[row.version - 1]?.checksum !== row.checksum) {
          throw new MigrationError(`migration ${row.version} of schema ${schema} was applied from different SQL than this package ships`);
        }
      }
      const applied: number[] = [];
      for (const migration of migrations.slice(from, target)) {
        try {
          await client.query(migration.sql);
        } catch (error) {
          throw new MigrationError(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, {
            cause: error,
          });
        }
        await client.query('INSERT INTO a2a_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          migration.checksum,
        ]);
        applied.push(migration.version);
      }
      return { from, version: Math.max(from, applied.at(-1) ?? from), applied };
    });
  } catch (error) {
    throw toUnavailable(error);
  }
}

/** The newest schema version this package ships. */
export function latestSchemaVersion(): number {
  return loadMigrations().length;
}
