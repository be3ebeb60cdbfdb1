import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One schema migration shipped with the package (`migrations/NNNN_name.sql`). */
interface Migration {
  version: number;
  name: string;
  sql: string;
  /** SHA-256 of the SQL: a migration applied before must not have changed since. */
  checksum: string;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/**
 * The package's `migrations` folder: next to `src/` and `dist/`, so the same relative path works
 * from the sources (workspace) and from the build (ESM has no `__dirname`, CJS no `import.meta`).
 */
function migrationsDir(): string {
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  // src/migrate/ -> two levels up; dist/ (bundled) -> one level up.
  return here.endsWith('migrate') ? join(here, '..', '..', 'migrations') : join(here, '..', 'migrations');
}

let cached: Migration[] | undefined;

/** The shipped migrations, oldest first; versions are 1, 2, ... without a hole. */
export function loadMigrations(dir: string = migrationsDir()): Migration[] {
  if (cached !== undefined && dir === migrationsDir()) return cached;
  const migrations = readdirSync(dir)
    .flatMap((file) => {
      const match = FILE.exec(file);
      if (!match) return [];
      const sql = readFileSync(join(dir, file), 'utf8');
      return [{ version: Number(match[1]), name: match[2] as string, sql, checksum: createHash('sha256').update(sql).digest('hex') }];
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1)
      throw new Error(`migrations must be numbered 1, 2, ... without a hole; found ${migration.version} at ${i + 1}`);
  });
  if (dir === migrationsDir()) cached = migrations;
  return migrations;
}
