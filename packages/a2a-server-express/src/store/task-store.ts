import type { StreamResponse, Task, TaskPushNotificationConfig, TaskState } from '@a2aplane/a2a-types';

/** Where a task lives: tasks are isolated by tenant, and owned by the principal that created them. */
export interface TaskKey {
  tenant: string;
  taskId: string;
}

/** One string for a task key, for maps of tasks (tenant and id cannot run together). */
export const taskMapKey = (key: TaskKey): string => `${key.tenant}\u0000${key.taskId}`;

export interface StoredTask {
  tenant: string;
  /** Principal id of the creator (`''` for anonymous callers). */
  owner: string;
  task: Task;
  /** Milliseconds since the epoch of the last change; list order and TTL read it. */
  updatedAt: number;
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
}

/** One entry of a task's event log: `seq` grows by one per event, from 1. */
export interface StoredEvent {
  seq: number;
  event: StreamResponse;
}

/**
 * Persistence for tasks, their event logs (for `Last-Event-ID` replay) and push configs.
 * Implementations must keep `appendEvent` sequence numbers strictly increasing per task; the
 * server serialises writes per task, so no locking is needed inside a store.
 */
export interface TaskStore {
  get(key: TaskKey): Promise<StoredTask | undefined>;
  upsert(record: StoredTask): Promise<void>;
  /** Newest status first. Resolves `undefined` when `pageToken` is not one this store issued. */
  list(query: TaskListQuery): Promise<TaskListPage | undefined>;
  delete(key: TaskKey): Promise<boolean>;
  /** Appends an event and returns its sequence number. */
  appendEvent(key: TaskKey, event: StreamResponse): Promise<number>;
  /** Events with `seq > afterSeq`, in order. */
  readEvents(key: TaskKey, afterSeq: number): Promise<StoredEvent[]>;
  /** Sequence number of the last appended event (0 when none). */
  lastSeq(key: TaskKey): Promise<number>;
  putPushConfig(key: TaskKey, config: TaskPushNotificationConfig & { id: string }): Promise<void>;
  listPushConfigs(key: TaskKey): Promise<(TaskPushNotificationConfig & { id: string })[]>;
  deletePushConfig(key: TaskKey, id: string): Promise<boolean>;
  /**
   * Idempotent SendMessage: atomically claims `key` for `taskId` and resolves `undefined`, or,
   * when the key is already claimed (and not yet expired), resolves the task id it names and
   * changes nothing. Keys are kept for a window (bounded in count and age) chosen by the store.
   */
  claimSendKey(key: SendKey, taskId: string): Promise<string | undefined>;
  /** Forgets `key` if it still names `taskId` (the send failed before its task existed). */
  releaseSendKey(key: SendKey, taskId: string): Promise<void>;
}
