import {
  decodeListPageToken,
  encodeListPageToken as encodeToken,
  taskStatusTime as statusTime,
  type OwnerShareLimits,
  type OwnerShareOptions,
  ownerShareMessage,
  resolveOwnerShares,
  type SendKey,
  type ShareLimit,
  type StoredPushConfig,
  type StoredTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskRecord,
  TaskRevisionConflictError,
  type TaskStore,
  TaskStoreFullError,
  type TaskWriteOptions,
} from '@a2aplane/a2a-server-express';
import { InvalidParamsError, isTerminalTaskState, RateLimitedError, type Task } from '@a2aplane/a2a-types';
import type { Pool } from 'pg';
import { open, type PushConfigKeyring, pushConfigAad, seal } from '../push/keyring.js';
import { bind, type Statement } from '../statement.js';
import { DEFAULT_SCHEMA, hasNul, positive, query, quoteSchema } from '../sql.js';
import { type Bound, listStatement, storeStatements } from './statements.js';
import { createSweeper, type Sweeper } from './sweeper.js';

/**
 * Per-caller shares (`maxTasksPerOwner`, `maxBytesPerOwner`, decision 0069) resolve as the
 * in-memory store's defaults: half of 10 000 live tasks and half of 256 MiB of task JSON per
 * caller; `Infinity` turns one off. The database has no global cap (decision 0075): the shares
 * keep one caller from taking the whole table.
 */
export interface PostgresTaskStoreOptions extends OwnerShareOptions {
  /** A `pg.Pool` on the database (the store neither connects nor ends it). */
  pool: Pool;
  /** The schema `migrate()` created; every replica of one agent uses the same. Default `a2a`. */
  schema?: string;
  /**
   * The operator's keys for push configs, which are stored encrypted (AES-256-GCM) under the
   * current key. Required: there is no plaintext mode.
   */
  pushConfigKeys: PushConfigKeyring;
  /** How long a terminal task is kept after its last change. Default 10 minutes. */
  ttlMs?: number;
  /** How long a task that is not terminal is kept after its last change (its replica may have died). Default 24 hours. */
  liveTtlMs?: number;
  /** Largest task record in bytes of JSON; a bigger write is refused (`TaskStoreFullError`) unless a small overshoot ends the task. Default 16 MiB. */
  maxTaskBytes?: number;
  /** Most push configs per task. Default 16. */
  maxPushConfigsPerTask?: number;
  /** How long a SendMessage key (tenant, caller, messageId) is remembered. Default 10 minutes. */
  idempotencyTtlMs?: number;
  /** Deadline of one statement; past it the call fails with `PostgresUnavailableError` (503). Default 5 000 ms. */
  statementTimeoutMs?: number;
  /**
   * How often this replica deletes expired rows (tasks, their push configs, send keys, event logs,
   * nonces); reads never see an expired row whatever the interval. `false`: never (run `sweep()`
   * yourself, e.g. from a cron job). Default 60 000 ms.
   */
  sweepIntervalMs?: number | false;
  /** Errors of the background sweep (the next sweep tries again). */
  onError?: (error: unknown) => void;
  /** Clock, for tests. */
  now?: () => number;
}

/** A page token's cursor; an id with a NUL byte cannot be a task id PostgreSQL holds, so it is no token of ours. */
function decodeToken(token: string): { time: number; id: string } | undefined {
  const cursor = decodeListPageToken(token);
  return cursor && !hasNul(cursor.id) ? cursor : undefined;
}

/** The PostgreSQL task store (`TaskStore`). */
export interface PostgresTaskStore extends TaskStore {
  readonly schema: string;
  /** Deletes expired rows now; resolves how many rows went. */
  sweep(): Promise<number>;
  /** Stops the background sweep (the pool stays open). */
  close(): void;
}

const refuseNul = (what: string): never => {
  throw new InvalidParamsError({ message: `${what} must not contain U+0000` });
};

/** A task write as the values of the write statements' parameters. */
interface PreparedWrite {
  create: boolean;
  terminal: boolean;
  values: Record<string, unknown>;
  /** The new revision from the statement's row; throws the share's `TaskStoreFullError`, or `TaskRevisionConflictError` when the compare-and-set lost. */
  revision(row: WriteRow | undefined): number;
}

interface Row {
  owner: string;
  updated_at: string;
  revision: number;
  task: Task;
}

const toStored = (tenant: string, row: Row): StoredTask => ({
  tenant,
  owner: row.owner,
  task: row.task,
  updatedAt: Number(row.updated_at),
  revision: row.revision,
});

/** What a write statement returns (`WRITE_RESULT`). */
interface WriteRow {
  revision: number | null;
  current: number | null;
  refused: ShareLimit | null;
}

interface WriteLimits {
  ttlMs: number;
  liveTtlMs: number;
  maxTaskBytes: number;
  shares: OwnerShareLimits;
  now: () => number;
}

/** A share as a statement parameter: null is none (`Infinity`). */
const shareParam = (limit: number): number | null => (Number.isFinite(limit) ? Math.floor(limit) : null);

/** A task write as the values of the write statements' parameters (checked: revision, key, size). */
function prepareTaskWrite(record: TaskRecord, writeOptions: TaskWriteOptions, limits: WriteLimits): PreparedWrite {
  const { ttlMs, liveTtlMs, maxTaskBytes, shares, now } = limits;
  const { tenant, owner, task } = record;
  const taskId = task.id;
  const expected = writeOptions.expectedRevision;
  if (!(Number.isSafeInteger(expected) && expected >= 0)) throw new RangeError(`expected expectedRevision >= 0, got ${expected}`);
  if (hasNul(tenant, owner, taskId, task.contextId ?? '')) refuseNul('A task key');
  const terminal = isTerminalTaskState(task.status.state);
  const json = JSON.stringify(task);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxTaskBytes && !(terminal && bytes <= maxTaskBytes + 4096)) {
    throw new TaskStoreFullError('maxTaskBytes', `The task would hold more than ${maxTaskBytes} bytes`);
  }
  const at = now();
  const create = expected === 0;
  const values: Record<string, unknown> = {
    tenant,
    taskId,
    owner,
    contextId: task.contextId ?? '',
    state: task.status.state,
    statusTime: statusTime(record),
    updatedAt: record.updatedAt,
    expiresAt: at + (terminal ? ttlMs : liveTtlMs),
    terminal,
    now: at,
    task: json,
    bytes,
    maxTasksPerOwner: shareParam(shares.maxTasksPerOwner),
    maxBytesPerOwner: shareParam(shares.maxBytesPerOwner),
  };
  if (!create) values.expected = expected;
  return {
    create,
    terminal,
    values,
    revision(row) {
      if (row?.refused) throw new TaskStoreFullError(row.refused, ownerShareMessage(row.refused, shares));
      if (row?.revision == null) throw new TaskRevisionConflictError({ tenant, taskId }, expected, row?.current ?? 0);
      return row.revision;
    },
  };
}

/** ListTasks: the filtered count and one page after the cursor, in one statement. */
async function listTasks(
  run: <R extends object>(stmt: Statement, values: unknown[]) => Promise<R[]>,
  s: string,
  lists: Map<string, Bound>,
  query: TaskListQuery,
  at: number,
): Promise<TaskListPage | undefined> {
  let cursor: { time: number; id: string } | undefined;
  if (query.pageToken) {
    cursor = decodeToken(query.pageToken);
    if (!cursor) return undefined;
  }
  if (hasNul(query.tenant, query.owner, query.contextId ?? '')) return { records: [], nextPageToken: '', totalSize: 0 };
  const filters = {
    contextId: query.contextId !== undefined,
    status: query.status !== undefined,
    after: query.statusTimestampAfter !== undefined,
    cursor: cursor !== undefined,
  };
  const shape = JSON.stringify(filters);
  let stmt = lists.get(shape);
  if (stmt === undefined) {
    stmt = listStatement(s, filters);
    lists.set(shape, stmt);
  }
  const values = bind(stmt.order, {
    tenant: query.tenant,
    owner: query.owner,
    now: at,
    contextId: query.contextId,
    status: query.status,
    after: query.statusTimestampAfter,
    cursorTime: cursor?.time,
    cursorId: cursor?.id,
    limit: query.pageSize + 1,
  });
  const rows = await run<Partial<Row> & { total: string; task_id: string | null; status_time: string | null }>(stmt, values);
  const totalSize = Number(rows[0]?.total ?? 0);
  const found = rows.filter((row) => row.task_id != null);
  const page = found.slice(0, query.pageSize);
  const last = page.at(-1);
  return {
    records: page.map((row) => toStored(query.tenant, row as Row)),
    nextPageToken: found.length > page.length && last ? encodeToken(Number(last.status_time), last.task_id as string) : '',
    totalSize,
  };
}

/**
 * Creates the PostgreSQL `TaskStore`: every replica pointed at one database and schema sees the
 * same tasks. Each write is one statement (atomic): the compare-and-set on `revision` and the
 * row change together or not at all, and it resolves only after PostgreSQL committed it (durable
 * with the server's default `synchronous_commit = on`). Run `migrate()` first.
 */
export function createPostgresTaskStore(options: PostgresTaskStoreOptions): PostgresTaskStore {
  const { pool } = options;
  if (options.pushConfigKeys === undefined) throw new TypeError('expected pushConfigKeys (a PushConfigKeyring), got undefined');
  const keyring = options.pushConfigKeys;
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const s = quoteSchema(schema);
  const ttlMs = positive('ttlMs', options.ttlMs ?? 10 * 60_000);
  const liveTtlMs = positive('liveTtlMs', options.liveTtlMs ?? 24 * 60 * 60_000);
  const maxTaskBytes = positive('maxTaskBytes', options.maxTaskBytes ?? 16 * 1024 * 1024);
  const maxPush = positive('maxPushConfigsPerTask', options.maxPushConfigsPerTask ?? 16);
  const sendTtlMs = positive('idempotencyTtlMs', options.idempotencyTtlMs ?? 10 * 60_000);
  const timeoutMs = positive('statementTimeoutMs', options.statementTimeoutMs ?? 5_000);
  const now = options.now ?? Date.now;
  const statements = storeStatements(s);
  const lists = new Map<string, Bound>();
  const run = <R extends object>(stmt: Statement, values: unknown[]): Promise<R[]> => query<R>(pool, timeoutMs, stmt, values);

  // The in-memory store's resolution: half of its default task count and byte budget (decision 0131).
  const shares = resolveOwnerShares(options);
  const limits: WriteLimits = { ttlMs, liveTtlMs, maxTaskBytes, shares, now };
  const prepareWrite = (record: TaskRecord, writeOptions: TaskWriteOptions): PreparedWrite =>
    prepareTaskWrite(record, writeOptions, limits);

  const sweeper: Sweeper = createSweeper({ pool, schema: s, now, intervalMs: options.sweepIntervalMs ?? 60_000, onError: options.onError });

  const store: PostgresTaskStore = {
    schema,
    async get(key) {
      if (hasNul(key.tenant, key.taskId)) return undefined;
      const [row] = await run<Row>(statements.get, [key.tenant, key.taskId, now()]);
      return row === undefined ? undefined : toStored(key.tenant, row);
    },

    async upsert(record, writeOptions) {
      const prepared = prepareWrite(record, writeOptions);
      const stmt = prepared.create ? statements.create : statements.update;
      const [row] = await run<WriteRow>(stmt, bind(stmt.order, prepared.values));
      return prepared.revision(row);
    },

    async admitTask(request) {
      if (hasNul(request.tenant, request.owner)) refuseNul('A task key');
      const [row] = await run<{ n: string; b: string }>(statements.share, [request.tenant, request.owner, now()]);
      // One more task, one more byte: what a create of the smallest task would pass.
      if (Number(row?.n ?? 0) + 1 > shares.maxTasksPerOwner)
        throw new TaskStoreFullError('maxTasksPerOwner', ownerShareMessage('maxTasksPerOwner', shares));
      if (Number(row?.b ?? 0) + 1 > shares.maxBytesPerOwner)
        throw new TaskStoreFullError('maxBytesPerOwner', ownerShareMessage('maxBytesPerOwner', shares));
    },

    list: (listQuery) => listTasks(run, s, lists, listQuery, now()),

    async delete(key) {
      if (hasNul(key.tenant, key.taskId)) return false;
      const rows = await run<{ live: boolean }>(statements.delete, [key.tenant, key.taskId, now()]);
      return rows.some((row) => row.live);
    },

    async putPushConfig(key, config) {
      if (hasNul(key.tenant, key.taskId, config.id)) refuseNul('A push config key');
      const { keyId, sealed } = await seal(keyring, JSON.stringify(config), pushConfigAad(key.tenant, key.taskId, config.id));
      const [row] = await run<{ task: boolean; written: boolean }>(statements.putPush, [
        key.tenant,
        key.taskId,
        config.id,
        keyId,
        sealed,
        now(),
        maxPush,
      ]);
      if (row?.task && !row.written) {
        throw new RateLimitedError({
          message: `A task holds at most ${maxPush} push configs`,
          metadata: { limit: 'maxPushConfigsPerTask' },
        });
      }
    },

    async listPushConfigs(key) {
      if (hasNul(key.tenant, key.taskId)) return [];
      const rows = await run<{ config_id: string; key_id: string; sealed: Buffer }>(statements.listPush, [key.tenant, key.taskId, now()]);
      const configs: StoredPushConfig[] = [];
      for (const row of rows) {
        const json = await open(keyring, row.key_id, row.sealed, pushConfigAad(key.tenant, key.taskId, row.config_id));
        configs.push(JSON.parse(json) as StoredPushConfig);
      }
      return configs;
    },

    async deletePushConfig(key, id) {
      if (hasNul(key.tenant, key.taskId, id)) return false;
      return (await run(statements.deletePush, [key.tenant, key.taskId, id])).length > 0;
    },

    async claimSendKey(key: SendKey, taskId: string) {
      if (hasNul(key.tenant, key.owner, key.messageId, taskId, key.fingerprint)) refuseNul('A message id');
      const at = now();
      const [row] = await run<{ task_id: string }>(statements.claimSend, [
        key.tenant,
        key.owner,
        key.messageId,
        taskId,
        at + sendTtlMs,
        at,
        key.fingerprint,
      ]);
      return row === undefined || row.task_id === taskId ? undefined : row.task_id;
    },

    async releaseSendKey(key, taskId) {
      if (hasNul(key.tenant, key.owner, key.messageId, taskId, key.fingerprint)) return;
      await run(statements.releaseSend, [key.tenant, key.owner, key.messageId, taskId, key.fingerprint]);
    },

    sweep: () => sweeper.sweep(),
    close: () => sweeper.stop(),
  };
  writers.set(store, { pool, schema: s, prepareWrite, timeoutMs });
  return store;
}

/** How a bus on the same pool and schema writes this store inside its own statement. */
interface StoreWriter {
  pool: Pool;
  /** The quoted schema. */
  schema: string;
  timeoutMs: number;
  prepareWrite(record: TaskRecord, writeOptions: TaskWriteOptions): PreparedWrite;
}

/** Stores made here, and how to write them: kept off the public object so only this package sees it. */
const writers = new WeakMap<TaskStore, StoreWriter>();

/** How to write `store` in a statement, when it is a PostgreSQL task store of this package. */
export function storeWriter(store: TaskStore): StoreWriter | undefined {
  return writers.get(store);
}
