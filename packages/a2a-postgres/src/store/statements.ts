import { parameters, type Statement, statement } from '../statement.js';

/** A statement with the names of its parameters in order. */
export interface Bound extends Statement {
  order: string[];
}

/**
 * The common-table expressions of a task write (compare-and-set), for the store's upsert and the
 * bus's commit alike: `cur` is the live stored revision (in the statement's snapshot), `w` the
 * written revision (no row: the compare-and-set lost). A create may replace an expired row (then
 * the old task's push configs go too). Parameters: tenant, taskId, owner, contextId, state,
 * statusTime, updatedAt, expiresAt, terminal, now, task (JSON), and expected for an update.
 */
export function writeCtes(s: string, create: boolean, p: (name: string) => string): string {
  const key = `tenant = ${p('tenant')} AND task_id = ${p('taskId')}`;
  const cur = `cur AS (SELECT revision FROM ${s}.tasks WHERE ${key} AND expires_at > ${p('now')})`;
  if (create) {
    return `${cur},
cleared AS (DELETE FROM ${s}.push_configs WHERE ${key} AND NOT EXISTS (SELECT 1 FROM cur)),
w AS (INSERT INTO ${s}.tasks AS t (tenant, task_id, owner, context_id, state, status_time, updated_at, expires_at, terminal, revision, task)
  VALUES (${p('tenant')}, ${p('taskId')}, ${p('owner')}, ${p('contextId')}, ${p('state')}, ${p('statusTime')}, ${p('updatedAt')}, ${p('expiresAt')}, ${p('terminal')}, 1, ${p('task')})
  ON CONFLICT (tenant, task_id) DO UPDATE SET owner = EXCLUDED.owner, context_id = EXCLUDED.context_id, state = EXCLUDED.state,
    status_time = EXCLUDED.status_time, updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at,
    terminal = EXCLUDED.terminal, revision = 1, task = EXCLUDED.task
  WHERE t.expires_at <= ${p('now')}
  RETURNING revision)`;
  }
  return `${cur},
w AS (UPDATE ${s}.tasks SET owner = ${p('owner')}, context_id = ${p('contextId')}, state = ${p('state')}, status_time = ${p('statusTime')},
    updated_at = ${p('updatedAt')}, expires_at = ${p('expiresAt')}, terminal = ${p('terminal')}, revision = revision + 1, task = ${p('task')}
  WHERE ${key} AND revision = ${p('expected')} AND expires_at > ${p('now')}
  RETURNING revision)`;
}

/** The store's upsert: one statement, one round trip. */
function upsertStatement(s: string, create: boolean): Bound {
  const { p, order } = parameters();
  const text = `WITH ${writeCtes(s, create, p)}
SELECT (SELECT revision FROM w) AS revision, (SELECT revision FROM cur) AS current`;
  return { ...statement(text), order };
}

/** Every statement of the task store of schema `s` (quoted). */
export function storeStatements(s: string) {
  const one = (text: string): Statement => statement(text);
  return {
    create: upsertStatement(s, true),
    update: upsertStatement(s, false),
    get: one(`SELECT owner, updated_at, revision, task FROM ${s}.tasks WHERE tenant = $1 AND task_id = $2 AND expires_at > $3`),
    delete: one(`DELETE FROM ${s}.tasks WHERE tenant = $1 AND task_id = $2 RETURNING expires_at > $3 AS live`),
    putPush: one(`WITH task AS (SELECT 1 FROM ${s}.tasks WHERE tenant = $1 AND task_id = $2 AND expires_at > $6),
others AS (SELECT count(*) AS n FROM ${s}.push_configs WHERE tenant = $1 AND task_id = $2 AND config_id <> $3),
w AS (INSERT INTO ${s}.push_configs (tenant, task_id, config_id, key_id, sealed)
  SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM task) AND (SELECT n FROM others) < $7
  ON CONFLICT (tenant, task_id, config_id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed
  RETURNING 1)
SELECT EXISTS (SELECT 1 FROM task) AS task, EXISTS (SELECT 1 FROM w) AS written`),
    listPush: one(`SELECT p.config_id, p.key_id, p.sealed FROM ${s}.push_configs p
JOIN ${s}.tasks t ON t.tenant = p.tenant AND t.task_id = p.task_id AND t.expires_at > $3
WHERE p.tenant = $1 AND p.task_id = $2 ORDER BY p.config_id`),
    deletePush: one(`DELETE FROM ${s}.push_configs WHERE tenant = $1 AND task_id = $2 AND config_id = $3 RETURNING 1`),
    // A claimed key that has not expired keeps its task; the row is returned either way (one round trip, exact under races).
    claimSend:
      one(`INSERT INTO ${s}.send_keys AS k (tenant, owner, message_id, task_id, expires_at, fingerprint) VALUES ($1, $2, $3, $4, $5, $7)
ON CONFLICT (tenant, owner, message_id, fingerprint) DO UPDATE SET
  task_id = CASE WHEN k.expires_at <= $6 THEN EXCLUDED.task_id ELSE k.task_id END,
  expires_at = CASE WHEN k.expires_at <= $6 THEN EXCLUDED.expires_at ELSE k.expires_at END
RETURNING task_id`),
    releaseSend: one(
      `DELETE FROM ${s}.send_keys WHERE tenant = $1 AND owner = $2 AND message_id = $3 AND task_id = $4 AND fingerprint = $5`,
    ),
  };
}

/** ListTasks with the filters present (texts vary by filter; each is prepared once). */
export function listStatement(s: string, filters: { contextId: boolean; status: boolean; after: boolean; cursor: boolean }): Bound {
  const { p, order } = parameters();
  const where = [`tenant = ${p('tenant')}`, `owner = ${p('owner')}`, `expires_at > ${p('now')}`];
  if (filters.contextId) where.push(`context_id = ${p('contextId')}`);
  if (filters.status) where.push(`state = ${p('status')}`);
  if (filters.after) where.push(`status_time > ${p('after')}`);
  const cursor = filters.cursor
    ? `WHERE status_time < ${p('cursorTime')} OR (status_time = ${p('cursorTime')} AND task_id > ${p('cursorId')})`
    : '';
  const text = `WITH m AS (SELECT task_id, owner, updated_at, revision, status_time, task FROM ${s}.tasks WHERE ${where.join(' AND ')})
SELECT c.total, pg.* FROM (SELECT count(*) AS total FROM m) c
LEFT JOIN LATERAL (SELECT * FROM m ${cursor} ORDER BY status_time DESC, task_id LIMIT ${p('limit')}) pg ON true`;
  return { ...statement(text), order };
}
