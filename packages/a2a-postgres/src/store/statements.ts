import { parameters, type Statement, statement } from '../statement.js';

/** A statement with the names of its parameters in order. */
export interface Bound extends Statement {
  order: string[];
}

/**
 * The common-table expressions of a task write (compare-and-set), for the store's upsert and the
 * bus's commit alike: `cur` is the live stored revision (in the statement's snapshot), `share` the
 * caller's share (decision 0069) the write would pass (`refused`: its limit, or null), `w` the
 * written revision (no row: the compare-and-set lost, or the share refused). A create may replace
 * an expired row (then the old task's push configs go too). A live write counts the caller's other
 * live tasks and their bytes from the `tasks_live_owner` index; a terminal write is never refused.
 * Parameters: tenant, taskId, owner, contextId, state, statusTime, updatedAt, expiresAt, terminal,
 * now, task (JSON), bytes, maxTasksPerOwner and maxBytesPerOwner (null: none), and expected for an update.
 */
export function writeCtes(s: string, create: boolean, p: (name: string) => string): string {
  const key = `tenant = ${p('tenant')} AND task_id = ${p('taskId')}`;
  const cur = `cur AS (SELECT revision, bytes FROM ${s}.tasks WHERE ${key} AND expires_at > ${p('now')})`;
  const bytes = `${p('bytes')}::bigint`;
  const share = `others AS (SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM ${s}.tasks
  WHERE tenant = ${p('tenant')} AND owner = ${p('owner')} AND NOT terminal AND expires_at > ${p('now')} AND task_id <> ${p('taskId')}),
share AS (SELECT CASE
  WHEN ${p('terminal')}::boolean THEN NULL
  WHEN ${create ? 'NOT EXISTS (SELECT 1 FROM cur) AND ' : ''}others.n + 1 > ${p('maxTasksPerOwner')}::bigint THEN 'maxTasksPerOwner'
  WHEN ${bytes} > coalesce((SELECT bytes FROM cur), 0) AND others.b + ${bytes} > ${p('maxBytesPerOwner')}::bigint THEN 'maxBytesPerOwner'
  END AS refused FROM others)`;
  const allowed = `(SELECT refused FROM share) IS NULL`;
  if (create) {
    return `${cur},
${share},
cleared AS (DELETE FROM ${s}.push_configs WHERE ${key} AND NOT EXISTS (SELECT 1 FROM cur) AND ${allowed}),
w AS (INSERT INTO ${s}.tasks AS t (tenant, task_id, owner, context_id, state, status_time, updated_at, expires_at, terminal, revision, task, bytes)
  SELECT ${p('tenant')}, ${p('taskId')}, ${p('owner')}, ${p('contextId')}, ${p('state')}, ${p('statusTime')}::bigint, ${p('updatedAt')}::bigint,
    ${p('expiresAt')}::bigint, ${p('terminal')}::boolean, 1, ${p('task')}::json, ${bytes} WHERE ${allowed}
  ON CONFLICT (tenant, task_id) DO UPDATE SET owner = EXCLUDED.owner, context_id = EXCLUDED.context_id, state = EXCLUDED.state,
    status_time = EXCLUDED.status_time, updated_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at,
    terminal = EXCLUDED.terminal, revision = 1, task = EXCLUDED.task, bytes = EXCLUDED.bytes
  WHERE t.expires_at <= ${p('now')}
  RETURNING revision)`;
  }
  return `${cur},
${share},
w AS (UPDATE ${s}.tasks SET owner = ${p('owner')}, context_id = ${p('contextId')}, state = ${p('state')}, status_time = ${p('statusTime')},
    updated_at = ${p('updatedAt')}, expires_at = ${p('expiresAt')}, terminal = ${p('terminal')}, revision = revision + 1, task = ${p('task')},
    bytes = ${bytes}
  WHERE ${key} AND revision = ${p('expected')} AND expires_at > ${p('now')} AND ${allowed}
  RETURNING revision)`;
}

/** What a write statement selects after its CTEs: the new revision, the stored one, and a share's refusal. */
export const WRITE_RESULT =
  '(SELECT revision FROM w) AS revision, (SELECT revision FROM cur) AS current, (SELECT refused FROM share) AS refused';

/** The store's upsert: one statement, one round trip. */
function upsertStatement(s: string, create: boolean): Bound {
  const { p, order } = parameters();
  const text = `WITH ${writeCtes(s, create, p)}
SELECT ${WRITE_RESULT}`;
  return { ...statement(text), order };
}

/** Every statement of the task store of schema `s` (quoted). */
export function storeStatements(s: string) {
  const one = (text: string): Statement => statement(text);
  return {
    create: upsertStatement(s, true),
    update: upsertStatement(s, false),
    get: one(`SELECT owner, updated_at, revision, task FROM ${s}.tasks WHERE tenant = $1 AND task_id = $2 AND expires_at > $3`),
    // A caller's live tasks and their bytes, from the tasks_live_owner index (admitTask).
    share: one(`SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM ${s}.tasks
WHERE tenant = $1 AND owner = $2 AND NOT terminal AND expires_at > $3`),
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
