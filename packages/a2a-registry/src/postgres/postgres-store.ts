import { RegistryConflictError } from '../core/errors.js';
import type { AgentPage, AgentQuery, AgentRecord } from '../core/types.js';
import { decodeCursor, encodeCursor, pageSizeOf, queryWords, type RegistryStore, searchableText } from '../store/registry-store.js';
import { migrationSql, SCHEMA_NAME } from './schema.js';

/** The part of a `pg` client the store uses (structural, so `pg`'s types stay out of our API). */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
}

/** A `pg.Pool` (or anything with `connect()` handing out clients with `release()`). */
export interface PostgresPoolLike extends PostgresQueryable {
  connect(): Promise<PostgresQueryable & { release(error?: Error | boolean): void }>;
  end?(): Promise<void>;
}

export interface PostgresRegistryStoreOptions {
  /** A pool you own (not ended by `close`); or give `connectionString` and the store makes and ends its own. */
  pool?: PostgresPoolLike;
  connectionString?: string;
  /** The schema of the tables. Default `a2a_registry`. */
  schema?: string;
  /** Create the schema and tables if missing. Default true. */
  migrate?: boolean;
}

export interface PostgresRegistryStore extends RegistryStore {
  /** Drops the schema and everything in it (tests, teardown). */
  dropSchema(): Promise<void>;
}

const UNIQUE_VIOLATION = '23505';

const rowRecord = (row: Record<string, unknown>): AgentRecord => ({ ...(row.record as AgentRecord), revision: Number(row.revision) });

/**
 * The registry on PostgreSQL (driver `pg`): one row per agent (the record as jsonb beside the
 * columns search filters on), compare-and-set on `revision`, unique AgentIDs (current and former)
 * and card URLs enforced by the database, so several registry replicas can share it.
 */
export async function createPostgresRegistryStore(options: PostgresRegistryStoreOptions): Promise<PostgresRegistryStore> {
  const schema = options.schema ?? 'a2a_registry';
  if (!SCHEMA_NAME.test(schema)) throw new TypeError(`expected schema to be a lower-case SQL identifier, got ${JSON.stringify(schema)}`);
  let pool = options.pool;
  const owned = pool === undefined;
  if (!pool) {
    if (typeof options.connectionString !== 'string') throw new TypeError('expected options.pool or options.connectionString');
    const pg = await import('pg');
    const Pool = (pg.default ?? pg).Pool;
    pool = new Pool({ connectionString: options.connectionString, max: 10 }) as unknown as PostgresPoolLike;
  }
  const db = pool;
  const table = `"${schema}".agents`;
  const records = `"${schema}".agent_records`;
  const ids = `"${schema}".agent_ids`;
  const skillRows = `"${schema}".agent_skills`;
  const tagRows = `"${schema}".agent_tags`;
  if (options.migrate !== false) await db.query(migrationSql(schema));

  const select = `SELECT r.record, a.revision FROM ${table} a JOIN ${records} r ON r.id = a.id`;
  const one = async (sql: string, value: string): Promise<AgentRecord | undefined> => {
    const result = await db.query(sql, [value]);
    const row = result.rows[0];
    return row ? rowRecord(row) : undefined;
  };

  async function write(record: AgentRecord, expectedRevision: number | null): Promise<AgentRecord> {
    const client = await db.connect();
    const stored: AgentRecord = { ...structuredClone(record), revision: (expectedRevision ?? 0) + 1 };
    const { revision: _revision, ...body } = stored;
    const values = [
      stored.id,
      stored.agentId,
      stored.cardUrl,
      stored.origin,
      stored.status,
      stored.health.status,
      stored.skills,
      stored.tags,
      searchableText(stored),
      stored.revision,
    ];
    try {
      await client.query('BEGIN');
      const written =
        expectedRevision === null
          ? await client.query(
              `INSERT INTO ${table} (id, agent_id, card_url, origin, status, health, skills, tags, search_text, revision)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
              values,
            )
          : await client.query(
              `UPDATE ${table} SET agent_id = $2, card_url = $3, origin = $4, status = $5, health = $6, skills = $7, tags = $8,
               search_text = $9, revision = $10 WHERE id = $1 AND revision = $11`,
              [...values, expectedRevision],
            );
      if (written.rowCount !== 1) throw new RegistryConflictError(stored.id);
      await client.query(`INSERT INTO ${records} (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record`, [
        stored.id,
        JSON.stringify(body),
      ]);
      // The skill and tag rows follow the arrays (one statement; nothing changes on a health write).
      await client.query(
        `WITH old_skills AS (DELETE FROM ${skillRows} WHERE id = $1 AND skill <> ALL($2::text[])),
              old_tags AS (DELETE FROM ${tagRows} WHERE id = $1 AND tag <> ALL($3::text[])),
              new_skills AS (INSERT INTO ${skillRows} (skill, id) SELECT DISTINCT unnest($2::text[]), $1 ON CONFLICT DO NOTHING)
         INSERT INTO ${tagRows} (tag, id) SELECT DISTINCT unnest($3::text[]), $1 ON CONFLICT DO NOTHING`,
        [stored.id, stored.skills, stored.tags],
      );
      // Every AgentID the agent ever held finds it; the current one must not belong to another agent.
      const held = [stored.agentId, ...stored.keyHistory.map((entry) => entry.agentId)];
      await client.query(`INSERT INTO ${ids} (agent_id, id) SELECT unnest($1::text[]), $2 ON CONFLICT (agent_id) DO NOTHING`, [
        held,
        stored.id,
      ]);
      const owner = await client.query(`SELECT id FROM ${ids} WHERE agent_id = $1`, [stored.agentId]);
      if (owner.rows[0]?.id !== stored.id) throw new RegistryConflictError(stored.id, `AgentID ${stored.agentId} belongs to another agent`);
      await client.query('COMMIT');
      return stored;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION)
        throw new RegistryConflictError(stored.id, 'AgentID or card URL already enrolled');
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * The page's ids. A search by skill (or else tag) walks that skill's rows in id order and looks
   * each agent up (a nested loop: `OFFSET 0` keeps the planner from turning it into a merge join
   * that walks every agent up to the last match), so it stops after the page however rare the skill.
   * Ordering by (skill, id) with the skill fixed is the primary key's order, not the id index's.
   */
  function pageSql(query: AgentQuery, size: number, bind: (value: unknown) => string): string {
    const posting =
      query.skill !== undefined
        ? { rows: skillRows, column: 'skill', value: query.skill }
        : query.tag !== undefined
          ? { rows: tagRows, column: 'tag', value: query.tag }
          : undefined;
    const filters: string[] = [];
    if (posting) filters.push('a.id = p.id');
    if (query.skill !== undefined && query.tag !== undefined) filters.push(`a.tags @> ARRAY[${bind(query.tag)}]::text[]`);
    if (!query.includeInactive) filters.push(`a.status = 'active'`);
    if (query.origin !== undefined) filters.push(`a.origin = ${bind(query.origin)}`);
    if (query.health !== undefined) filters.push(`a.health = ANY(${bind([...query.health])}::text[])`);
    for (const word of queryWords(query.text)) filters.push(`strpos(a.search_text, ${bind(word)}) > 0`);
    const after = decodeCursor(query.cursor);
    const agentWhere = filters.length ? ` WHERE ${filters.join(' AND ')}` : '';
    if (!posting) {
      if (after !== undefined) filters.push(`a.id > ${bind(after)}`);
      const where = filters.length ? ` WHERE ${filters.join(' AND ')}` : '';
      return `SELECT a.id, a.revision FROM ${table} a${where} ORDER BY a.id LIMIT ${size + 1}`;
    }
    const postingWhere = [`p.${posting.column} = ${bind(posting.value)}`, ...(after !== undefined ? [`p.id > ${bind(after)}`] : [])];
    return `SELECT a.id, a.revision FROM ${posting.rows} p CROSS JOIN LATERAL (SELECT a.id, a.revision FROM ${table} a${agentWhere} OFFSET 0) a
      WHERE ${postingWhere.join(' AND ')} ORDER BY p.${posting.column}, p.id LIMIT ${size + 1}`;
  }

  async function search(query: AgentQuery): Promise<AgentPage> {
    const size = pageSizeOf(query);
    const values: unknown[] = [];
    const bind = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    const sql = `SELECT r.record, p.revision FROM (${pageSql(query, size, bind)}) p JOIN ${records} r ON r.id = p.id ORDER BY p.id`;
    const rows = (await db.query(sql, values)).rows.map(rowRecord);
    if (rows.length <= size) return { agents: rows };
    const agents = rows.slice(0, size);
    return { agents, nextCursor: encodeCursor((agents.at(-1) as AgentRecord).id) };
  }

  return {
    get: (id) => one(`${select} WHERE a.id = $1`, id),
    findByAgentId: (agentId) => one(`${select} JOIN ${ids} i ON i.id = a.id WHERE i.agent_id = $1`, agentId),
    findByCardUrl: (cardUrl) => one(`${select} WHERE a.card_url = $1`, cardUrl),
    put: write,
    search,
    async dropSchema() {
      await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
    async close() {
      if (owned) await db.end?.();
    },
  };
}
