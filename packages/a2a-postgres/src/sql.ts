import type { Pool, PoolClient } from 'pg';
import { PostgresUnavailableError } from './errors.js';

/** What the store, bus and caches query through: a `pg.Pool` (or anything with its `query`). */
type Queryable = Pick<Pool, 'query'>;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema name, checked and quoted for SQL: lowercase letters, digits and `_`, at most 63
 * characters (PostgreSQL's limit), so it can be put in statements as an identifier safely.
 */
export function quoteSchema(schema: string): string {
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) {
    throw new TypeError(
      `expected schema to be a PostgreSQL identifier (a-z, 0-9, _; at most 63 characters), got ${JSON.stringify(schema)}`,
    );
  }
  return `"${schema}"`;
}

export const DEFAULT_SCHEMA = 'a2a';

export const positive = (name: string, value: number): number => {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new RangeError(`expected ${name} >= 1 (an integer), got ${value}`);
  return value;
};

/** SQLSTATE classes and Node socket codes that mean "the database is not there" (not a bug in a statement). */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND']);

function isUnavailable(error: unknown): boolean {
  if (error instanceof PostgresUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end/i.test(
    error.message,
  );
}

/** A driver error as the package's error: unavailability becomes `PostgresUnavailableError`; anything else is rethrown as is. */
export function toUnavailable(error: unknown): unknown {
  if (error instanceof PostgresUnavailableError) return error;
  if (isUnavailable(error)) return new PostgresUnavailableError('unreachable', { cause: error });
  return error;
}

/**
 * Runs a statement with a deadline: past `timeoutMs` the call rejects with
 * `PostgresUnavailableError('timeout')` (the statement may still finish; every write here is a
 * single atomic statement or transaction, so it either happened whole or not at all).
 */
export async function query<R extends object>(
  db: Queryable,
  timeoutMs: number,
  statement: string | { name: string; text: string },
  values: unknown[],
): Promise<R[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PostgresUnavailableError('timeout')), timeoutMs);
  });
  try {
    const config = typeof statement === 'string' ? { text: statement, values } : { name: statement.name, text: statement.text, values };
    const result = await Promise.race([db.query(config), deadline]);
    return result.rows as R[];
  } catch (error) {
    throw toUnavailable(error);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `body` in a transaction on one client of `pool` (rolled back when it throws). */
export async function transaction<T>(pool: Pick<Pool, 'connect'>, body: (client: PoolClient) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw toUnavailable(error);
  }
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError;
    }
    throw toUnavailable(error);
  } finally {
    // A client whose rollback failed is not given back to the pool.
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** Text columns cannot hold NUL; a key with one names nothing this store can hold. */
export const hasNul = (...values: string[]): boolean => values.some((v) => v.includes('\u0000'));
