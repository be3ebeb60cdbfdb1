import { flag, integerOption, parseCommandArgs, positionals, stringValue } from '../args.js';
import { CliError, usageError } from '../errors.js';
import type { Command } from './types.js';

/** The optional packages `a2a db` needs, loaded only when it runs (nothing else in the CLI depends on them). */
async function loadPostgres() {
  try {
    const [postgres, pg] = await Promise.all([import('@a2aplane/a2a-postgres'), import('pg')]);
    return { migrate: postgres.migrate, Pool: pg.default.Pool };
  } catch {
    throw new CliError('db: needs @a2aplane/a2a-postgres and pg; install them next to the CLI (npm i @a2aplane/a2a-postgres pg)');
  }
}

/** A postgres:// URL, else a usage error. The URL is never printed: it may hold a password. */
function databaseUrl(value: string | undefined): string {
  if (value === undefined) throw usageError('db migrate: missing --url (or set DATABASE_URL); see a2a db --help');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError('db migrate: --url is not a URL; expected postgres://user@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw usageError(`db migrate: --url expects postgres:// or postgresql://, got ${url.protocol}`);
  }
  return value;
}

export const dbCommand: Command = {
  name: 'db',
  summary: 'create or upgrade the PostgreSQL schema of @a2aplane/a2a-postgres',
  help: `Usage: a2a db migrate [--url postgres://...] [--schema a2a] [--to <version>] [--json]

Applies the SQL migrations shipped with @a2aplane/a2a-postgres to the schema, in one
transaction under an advisory lock: replicas or jobs running it together migrate once, a
failure changes nothing, and a second run does nothing. Needs @a2aplane/a2a-postgres and pg
installed next to the CLI.

Options:
  --url <url>      postgres:// connection URL (default: the DATABASE_URL environment variable)
  --schema <name>  schema to migrate (default a2a)
  --to <version>   stop at this version (default: the newest the package ships)
  --json           print {"schema","from","version","applied"}

Exit codes:
  0   schema at the version asked for
  1   error (database unreachable, a migration failed, schema newer than the package)
  64  usage error`,
  async run(ctx, argv) {
    const args = parseCommandArgs('db', argv, {
      url: { type: 'string' },
      schema: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean' },
    });
    const [action] = positionals('db', args, ['action']);
    if (action !== 'migrate') throw usageError(`db: unknown action ${JSON.stringify(action)}; expected migrate`);
    const url = databaseUrl(stringValue(args, 'url') ?? ctx.io.env.DATABASE_URL);
    const schema = stringValue(args, 'schema') ?? 'a2a';
    const to = integerOption('db', args, 'to', { min: 1, max: 9999 });
    const { migrate, Pool } = await loadPostgres();
    const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => undefined);
    try {
      const result = await migrate(pool, { schema, ...(to === undefined ? {} : { to }) });
      if (flag(args, 'json')) ctx.out(JSON.stringify({ schema, ...result }));
      else if (result.applied.length === 0) ctx.out(`schema ${schema} is at version ${result.version}; nothing to do`);
      else ctx.out(`schema ${schema}: version ${result.from} -> ${result.version} (applied ${result.applied.join(', ')})`);
      return 0;
    } catch (error) {
      if (error instanceof RangeError || error instanceof TypeError) throw usageError(`db migrate: ${error.message}`);
      throw new CliError(`db migrate: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await pool.end().catch(() => undefined);
    }
  },
};
