import { createErrorBrand, type Task, type TaskPushNotificationConfig, type TaskState } from '@a2aplane/a2a-types';

/** Where a task lives: tasks are isolated by tenant, and owned by the principal that created them. */
export interface TaskKey {
  tenant: string;
  taskId: string;
}

/** One string for a task key, for maps of tasks (tenant and id cannot run together). */
export const taskMapKey = (key: TaskKey): string => `${key.tenant}\u0000${key.taskId}`;

/** What a writer hands to `TaskStore.upsert`: a task record without its revision (the store assigns it). */
export interface TaskRecord {
  tenant: string;
  /** Principal id of the creator (`''` for anonymous callers). */
  owner: string;
  task: Task;
  /** Milliseconds since the epoch of the last change; list order and TTL read it. */
  updatedAt: number;
}

/** A task record as stored. */
export interface StoredTask extends TaskRecord {
  /**
   * Revision of the record: 1 when created, one more on every write. A writer passes the revision
   * it read as `expectedRevision`, so two replicas cannot overwrite each other's changes.
   */
  revision: number;
}

/** The compare-and-set condition of a write. */
export interface TaskWriteOptions {
  /**
   * The revision the writer last read; `0` means the task must not exist yet (a create). The
   * write happens only when the stored revision is exactly this one.
   */
  expectedRevision: number;
}

const REVISION_CONFLICT = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-server-express/TaskRevisionConflictError');

/**
 * A compare-and-set write lost: the stored revision of the task is not the one the writer read
 * (another writer, possibly on another replica, changed or created it first). Nothing was
 * written. The server reloads and decides again; it never reaches a caller as such.
 */
export class TaskRevisionConflictError extends Error {
  readonly tenant: string;
  readonly taskId: string;
  readonly expectedRevision: number;
  /** The stored revision when the write was refused (`0`: no task stored), when the store knows it. */
  readonly actualRevision: number | undefined;

  constructor(key: TaskKey, expectedRevision: number, actualRevision?: number) {
    super(
      `task revision conflict: expected revision ${expectedRevision}${actualRevision === undefined ? '' : `, stored revision ${actualRevision}`}`,
    );
    this.name = 'TaskRevisionConflictError';
    this.tenant = key.tenant;
    this.taskId = key.taskId;
    this.expectedRevision = expectedRevision;
    this.actualRevision = actualRevision;
    REVISION_CONFLICT.mark(this);
  }

  /** True for a TaskRevisionConflictError from any copy of this package. */
  static isInstance(value: unknown): value is TaskRevisionConflictError {
    return REVISION_CONFLICT.is(value);
  }
}

export interface TaskListQuery {
  tenant: string;
  owner: string;
  contextId?: string;
  status?: TaskState;
  /** Only tasks whose status timestamp is after this instant (ms since the epoch). */
  statusTimestampAfter?: number;
  pageSize: number;
  /** An opaque token returned by a previous `list`; invalid tokens make `list` return `undefined`. */
  pageToken?: string;
}

export interface TaskListPage {
  records: StoredTask[];
  /** `''` on the last page. */
  nextPageToken: string;
  totalSize: number;
}

/** Who sent which message (spec §3.3.1): a repeated SendMessage is recognised by it. */
export interface SendKey {
  tenant: string;
  /** Principal id of the sender (`''` for anonymous callers). */
  owner: string;
  messageId: string;
  /**
   * Fingerprint of the message and its configuration (`sendFingerprint`): part of the key, so the
   * same messageId with another message is another key, and a store must keep it with the key.
   */
  fingerprint: string;
}

/** A push notification config as stored (its id is always set). */
export type StoredPushConfig = TaskPushNotificationConfig & { id: string };

/**
 * Persistence for tasks, their push configs and SendMessage idempotency keys; may be shared by
 * several server replicas. A task's events (the log `Last-Event-ID` replays, live fan-out and
 * cancel requests) are the `TaskEventBus`'s.
 *
 * Every task write is a compare-and-set on `StoredTask.revision`, atomic in the store: of two
 * writers that read the same revision, one wins and the other gets `TaskRevisionConflictError`.
 * Values handed in or out are copies: a caller mutating them changes nothing stored.
 */
export interface TaskStore {
  /** The task, or `undefined` when it is not stored (never created, deleted, expired or evicted). */
  get(key: TaskKey): Promise<StoredTask | undefined>;
  /**
   * Creates (`expectedRevision: 0`) or replaces the task `record` names when its stored revision
   * is `expectedRevision`; resolves the new revision (`expectedRevision + 1`). Rejects with
   * `TaskRevisionConflictError` (changing nothing) when the stored revision differs, and with
   * a store error (such as `TaskStoreFullError`) when the store refuses the write.
   */
  upsert(record: TaskRecord, options: TaskWriteOptions): Promise<number>;
  /** Newest status first. Resolves `undefined` when `pageToken` is not one this store issued. */
  list(query: TaskListQuery): Promise<TaskListPage | undefined>;
  /** Removes the task and its push configs; resolves whether it was stored. */
  delete(key: TaskKey): Promise<boolean>;
  /** Adds or replaces (by id) a push config of a stored task; does nothing when the task is not stored. */
  putPushConfig(key: TaskKey, config: StoredPushConfig): Promise<void>;
  listPushConfigs(key: TaskKey): Promise<StoredPushConfig[]>;
  deletePushConfig(key: TaskKey, id: string): Promise<boolean>;
  /**
   * Idempotent SendMessage: atomically claims `key` for `taskId` and resolves `undefined`, or,
   * when the key is already claimed (and not yet expired), resolves the task id it names and
   * changes nothing. Keys are kept for a window (bounded in count and age) chosen by the store.
   */
  claimSendKey(key: SendKey, taskId: string): Promise<string | undefined>;
  /** Forgets `key` if it still names `taskId` (the send failed before its task existed). */
  releaseSendKey(key: SendKey, taskId: string): Promise<void>;
  /**
   * Optional: rejects with the store's refusal (such as `TaskStoreFullError`) when a new task of
   * `owner` would be refused now, so the server refuses a SendMessage before its executor starts.
   * A store without it is asked nothing: its refusal then comes with the first write, and the
   * server aborts the executor's signal.
   */
  admitTask?(request: TaskAdmission): Promise<void>;
}

/** Who asks to create a task (`TaskStore.admitTask`). */
export interface TaskAdmission {
  tenant: string;
  /** Principal id of the creator (`''` for anonymous callers). */
  owner: string;
}
