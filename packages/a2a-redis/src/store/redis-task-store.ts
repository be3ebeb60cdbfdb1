import {
  decodeListPageToken as decodeToken,
  encodeListPageToken as encodeToken,
  taskStatusTime as statusTime,
  DEFAULT_STORE_MAX_TASKS,
  type OwnerShareLimits,
  type OwnerShareOptions,
  ownerShareMessage,
  resolveOwnerShares,
  type SendKey,
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
import { isTerminalTaskState, RateLimitedError } from '@a2aplane/a2a-types';
import { guardClient, type RedisClientLike, withDeadline } from '../connection.js';
import { createKeys, type RedisKeys } from '../keys.js';
import { ADMIT, DELETE, PUT_PUSH, RELEASE_SEND, UPSERT } from './scripts.js';

/**
 * Per-caller shares (`maxTasksPerOwner`, `maxBytesPerOwner`, decision 0069) resolve as the
 * in-memory store's: half of `maxTasks`, and half of the in-memory default byte budget (128 MiB of
 * record JSON); `Infinity` turns one off.
 */
export interface RedisTaskStoreOptions extends OwnerShareOptions {
  /** A connected node-redis client (the store neither connects nor closes it). */
  client: RedisClientLike;
  /** Starts every key of this deployment, e.g. `a2a:prod:`; the replicas of one agent share it. */
  keyPrefix: string;
  /** How long a terminal task is kept after its last change. Default 10 minutes. */
  ttlMs?: number;
  /**
   * How long a task that is not terminal is kept after its last change (a replica that died
   * mid-task leaves it behind; Redis forgets it then). Default 24 hours.
   */
  liveTtlMs?: number;
  /**
   * Most tasks kept. A new task beyond it evicts the task that ended first; when every task is
   * live, it is refused (`TaskStoreFullError`, 429) rather than evict one. Default 10 000.
   */
  maxTasks?: number;
  /** Largest task record in bytes of JSON; a bigger write is refused (`TaskStoreFullError`) unless a small overshoot ends the task. Default 16 MiB. */
  maxTaskBytes?: number;
  /** Most push configs per task. Default 16. */
  maxPushConfigsPerTask?: number;
  /** How long a SendMessage key (tenant, caller, messageId) is remembered. Default 10 minutes. */
  idempotencyTtlMs?: number;
  /** Deadline of one store call; past it the call fails with `RedisUnavailableError` (503). Default 2 000 ms. */
  commandTimeoutMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** The Redis task store (`TaskStore`), with the key names it uses. */
export interface RedisTaskStore extends TaskStore {
  readonly keys: RedisKeys;
}

interface Summary {
  contextId: string;
  state: string;
  time: number;
  expiresAt: number;
}

function parseSummary(raw: string): Summary | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string' && typeof v[2] === 'number' && typeof v[3] === 'number') {
      return { contextId: v[0], state: v[1], time: v[2], expiresAt: v[3] };
    }
  } catch {
    // a damaged entry is skipped
  }
  return undefined;
}

const positive = (name: string, value: number): number => {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new RangeError(`expected ${name} >= 1 (an integer), got ${value}`);
  return value;
};

/** A share as the scripts read it: `-1` is none (`Infinity`). */
const shareArg = (limit: number): string => (Number.isFinite(limit) ? String(Math.floor(limit)) : '-1');

/** A store's settings, resolved and checked once. */
interface StoreConfig {
  client: RedisClientLike;
  keys: RedisKeys;
  ttlMs: number;
  liveTtlMs: number;
  maxTasks: number;
  maxTaskBytes: number;
  maxPush: number;
  sendTtlMs: number;
  shares: OwnerShareLimits;
  now: () => number;
  run: <T>(fn: () => Promise<T>) => Promise<T>;
}

function resolveConfig(options: RedisTaskStoreOptions): StoreConfig {
  const { client } = options;
  guardClient(client);
  const timeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? 2_000);
  const maxTasks = positive('maxTasks', options.maxTasks ?? DEFAULT_STORE_MAX_TASKS);
  return {
    client,
    keys: createKeys(options.keyPrefix),
    ttlMs: positive('ttlMs', options.ttlMs ?? 10 * 60_000),
    liveTtlMs: positive('liveTtlMs', options.liveTtlMs ?? 24 * 60 * 60_000),
    maxTasks,
    maxTaskBytes: positive('maxTaskBytes', options.maxTaskBytes ?? 16 * 1024 * 1024),
    maxPush: positive('maxPushConfigsPerTask', options.maxPushConfigsPerTask ?? 16),
    sendTtlMs: positive('idempotencyTtlMs', options.idempotencyTtlMs ?? 10 * 60_000),
    // The in-memory store's resolution: half of maxTasks, half of its default byte budget.
    shares: resolveOwnerShares(options, { maxTasks }),
    now: options.now ?? Date.now,
    run: (fn) => withDeadline(timeoutMs, fn),
  };
}

/** The store's refusal for a limit a script named. */
function fullError(config: StoreConfig, limit: string): TaskStoreFullError {
  if (limit === 'maxTasksPerOwner' || limit === 'maxBytesPerOwner')
    return new TaskStoreFullError(limit, ownerShareMessage(limit, config.shares));
  if (limit === 'maxTasks')
    return new TaskStoreFullError('maxTasks', `The task store is full (${config.maxTasks} live tasks); retry later`);
  return new TaskStoreFullError('maxTaskBytes', `The task would hold more than ${config.maxTaskBytes} bytes`);
}

/** The UPSERT script's keys and arguments for a write, and how to read its reply. */
function prepareUpsert(config: StoreConfig, record: TaskRecord, writeOptions: TaskWriteOptions): PreparedUpsert {
  const { keys, ttlMs, liveTtlMs } = config;
  const { tenant, owner } = record;
  const taskId = record.task.id;
  const expected = writeOptions.expectedRevision;
  if (!(Number.isSafeInteger(expected) && expected >= 0)) throw new RangeError(`expected expectedRevision >= 0, got ${expected}`);
  const terminal = isTerminalTaskState(record.task.status.state);
  const ttl = terminal ? ttlMs : liveTtlMs;
  const at = config.now();
  // Only the record's own fields are stored: a `revision` handed in is the store's to set.
  const json = JSON.stringify({ tenant, owner, task: record.task, updatedAt: record.updatedAt });
  const summary = JSON.stringify([record.task.contextId ?? '', record.task.status.state, statusTime(record), at + ttl]);
  return {
    terminal,
    keys: [keys.task(tenant, taskId), keys.summary(tenant, owner), keys.live(), keys.push(tenant, taskId), keys.ended()],
    // In the order of UPSERT's ARGV (store/scripts.ts).
    args: [
      json,
      String(expected),
      owner,
      taskId,
      summary,
      terminal ? '1' : '0',
      String(ttl),
      String(at),
      String(config.maxTasks),
      String(config.maxTaskBytes),
      keys.task(tenant, taskId),
      String(liveTtlMs),
      keys.prefix,
      String(ttlMs),
      keys.share(tenant, owner),
      shareArg(config.shares.maxTasksPerOwner),
      shareArg(config.shares.maxBytesPerOwner),
    ],
    revision(reply) {
      const [status, value] = reply as [string, string];
      if (status === 'conflict') throw new TaskRevisionConflictError({ tenant, taskId }, expected, Number(value));
      if (status === 'full') throw fullError(config, value);
      return Number(value);
    },
  };
}

async function readRecords(config: StoreConfig, tenant: string, ids: string[]): Promise<(StoredTask | undefined)[]> {
  const { client, keys } = config;
  if (ids.length === 0) return [];
  // Sent in one tick: node-redis writes them as one pipeline.
  const replies = await config.run(() => Promise.all(ids.map((id) => client.sendCommand(['HMGET', keys.task(tenant, id), 'rec', 'rev']))));
  return replies.map((reply) => {
    const [rec, rev] = reply as [string | null, string | null];
    if (rec === null) return undefined;
    const record = JSON.parse(rec) as TaskRecord;
    return { ...record, revision: Number(rev) };
  });
}

/** ListTasks from the (tenant, owner) summary hash: filtered and sorted here, one page of records read. */
async function listTasks(config: StoreConfig, query: TaskListQuery): Promise<TaskListPage | undefined> {
  const { client, keys, run } = config;
  let cursor: { time: number; id: string } | undefined;
  if (query.pageToken) {
    cursor = decodeToken(query.pageToken);
    if (!cursor) return undefined;
  }
  const summaryKey = keys.summary(query.tenant, query.owner);
  const flat = (await run(() => client.sendCommand(['HGETALL', summaryKey]))) as string[];
  const at = config.now();
  const matches: { id: string; time: number }[] = [];
  const stale: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const id = flat[i] as string;
    const s = parseSummary(flat[i + 1] as string);
    if (!s || s.expiresAt <= at) {
      stale.push(id);
      continue;
    }
    if (query.contextId !== undefined && s.contextId !== query.contextId) continue;
    if (query.status !== undefined && s.state !== query.status) continue;
    if (query.statusTimestampAfter !== undefined && !(s.time > query.statusTimestampAfter)) continue;
    matches.push({ id, time: s.time });
  }
  // Entries of expired tasks leave the index lazily.
  if (stale.length > 0) void run(() => client.sendCommand(['HDEL', summaryKey, ...stale])).catch(() => {});
  matches.sort((a, b) => b.time - a.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const after = cursor ? matches.filter((m) => m.time < cursor.time || (m.time === cursor.time && m.id > cursor.id)) : matches;
  const page = after.slice(0, query.pageSize);
  const records = await readRecords(
    config,
    query.tenant,
    page.map((m) => m.id),
  );
  const last = page.at(-1);
  const nextPageToken = after.length > page.length && last ? encodeToken(last.time, last.id) : '';
  return {
    records: records.filter((r): r is StoredTask => r !== undefined && r.owner === query.owner),
    nextPageToken,
    totalSize: matches.length,
  };
}

/**
 * Creates the Redis `TaskStore`: every replica of an agent pointed at one Redis and one `keyPrefix`
 * sees the same tasks. Each write is one Lua script (atomic): compare-and-set on the revision, the
 * ListTasks summary, the live-task count, the caller's share and the TTLs change together or not at
 * all. `admitTask` refuses, in one script, what a create would refuse (the caller's share, then the
 * capacity), so a refused SendMessage starts nothing. Redis failures reject with
 * `RedisUnavailableError` (503, retryable); a write resolves only after Redis applied it.
 */
export function createRedisTaskStore(options: RedisTaskStoreOptions): RedisTaskStore {
  const config = resolveConfig(options);
  const { client, keys, run } = config;

  const store: RedisTaskStore = {
    keys,
    async get(key) {
      const [record] = await readRecords(config, key.tenant, [key.taskId]);
      return record;
    },
    async upsert(record, writeOptions) {
      const prepared = prepareUpsert(config, record, writeOptions);
      return prepared.revision(await run(() => UPSERT.run(client, prepared.keys, prepared.args)));
    },
    list: (query) => listTasks(config, query),

    async admitTask(request) {
      const args = [
        keys.share(request.tenant, request.owner),
        shareArg(config.shares.maxTasksPerOwner),
        shareArg(config.shares.maxBytesPerOwner),
        String(config.now()),
        String(config.liveTtlMs),
        String(config.ttlMs),
        String(config.maxTasks),
      ];
      const refused = await run(() => ADMIT.run(client, [keys.live(), keys.ended()], args));
      if (typeof refused === 'string' && refused !== '') throw fullError(config, refused);
    },

    async delete(key) {
      const owner = await run(() => client.sendCommand(['HGET', keys.task(key.tenant, key.taskId), 'owner']));
      if (typeof owner !== 'string') return false;
      const taskKeys = [
        keys.task(key.tenant, key.taskId),
        keys.push(key.tenant, key.taskId),
        keys.live(),
        keys.summary(key.tenant, owner),
        keys.ended(),
      ];
      const member = keys.task(key.tenant, key.taskId);
      return (await run(() => DELETE.run(client, taskKeys, [key.taskId, member, keys.share(key.tenant, owner)]))) === 1;
    },

    async putPushConfig(key, pushConfig) {
      const pushKeys = [keys.task(key.tenant, key.taskId), keys.push(key.tenant, key.taskId)];
      const result = await run(() => PUT_PUSH.run(client, pushKeys, [pushConfig.id, JSON.stringify(pushConfig), String(config.maxPush)]));
      if (result === -1) {
        throw new RateLimitedError({
          message: `A task holds at most ${config.maxPush} push configs`,
          metadata: { limit: 'maxPushConfigsPerTask' },
        });
      }
    },

    async listPushConfigs(key) {
      const values = (await run(() => client.sendCommand(['HVALS', keys.push(key.tenant, key.taskId)]))) as string[];
      return values.map((v) => JSON.parse(v) as StoredPushConfig);
    },

    async deletePushConfig(key, id) {
      return (await run(() => client.sendCommand(['HDEL', keys.push(key.tenant, key.taskId), id]))) === 1;
    },

    async claimSendKey(key: SendKey, taskId: string) {
      // SET NX GET: claims the key, or returns who holds it, in one atomic command (Redis >= 7.0).
      const name = keys.send(key.tenant, key.owner, key.messageId, key.fingerprint);
      const held = await run(() => client.sendCommand(['SET', name, taskId, 'NX', 'GET', 'PX', String(config.sendTtlMs)]));
      return typeof held === 'string' ? held : undefined;
    },

    async releaseSendKey(key, taskId) {
      await run(() => RELEASE_SEND.run(client, [keys.send(key.tenant, key.owner, key.messageId, key.fingerprint)], [taskId]));
    },
  };
  writers.set(store, { client, prepareUpsert: (record, writeOptions) => prepareUpsert(config, record, writeOptions) });
  return store;
}

/** A write of the store as the UPSERT script's keys and arguments (the bus's commit script runs the same code). */
interface PreparedUpsert {
  /** The record is terminal (the write moves it to the ended set). */
  terminal: boolean;
  keys: string[];
  args: string[];
  /** The new revision from the script's reply; throws the store's errors for a refusal. */
  revision(reply: unknown): number;
}

/** How a bus on the same connection writes this store inside its own script. */
interface StoreWriter {
  client: RedisClientLike;
  prepareUpsert(record: TaskRecord, writeOptions: TaskWriteOptions): PreparedUpsert;
}

/** Stores made here, and how to write them: kept off the public object so only this package sees it. */
const writers = new WeakMap<TaskStore, StoreWriter>();

/** How to write `store` in a script, when it is a Redis task store of this package. */
export function storeWriter(store: TaskStore): StoreWriter | undefined {
  return writers.get(store);
}
