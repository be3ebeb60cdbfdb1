import {
  isTerminalTaskState,
  type StreamResponse,
  type TaskPushNotificationConfig,
} from '@a2aplane/a2a-types';
import { cloneStored } from './clone.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { type SendKey, type StoredEvent, type StoredTask, type TaskKey, type TaskListPage, type TaskListQuery, type TaskStore, taskMapKey } from './task-store.js';

export interface InMemoryTaskStoreOptions {
  /** How long a terminal task is kept after its last change. Default 10 minutes. */
  terminalTtlMs?: number;
  /** Most tasks kept; beyond it the oldest terminal task is evicted first, then the oldest task. Default 10 000. */
  maxTasks?: number;
  /** Most events kept per task for replay; older ones are dropped. Default 1 000. */
  maxEventsPerTask?: number;
  /** How long a SendMessage key (tenant, caller, messageId) is remembered. Default 10 minutes. */
  idempotencyTtlMs?: number;
  /** Most SendMessage keys kept; beyond it the oldest is forgotten. Default 10 000. */
  maxIdempotencyKeys?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  record: StoredTask;
  events: StoredEvent[];
  seq: number;
  push: Map<string, TaskPushNotificationConfig & { id: string }>;
}


const statusTime = (record: StoredTask): number => {
  const ts = record.task.status.timestamp;
  const parsed = ts === undefined ? Number.NaN : Date.parse(ts);
  return Number.isNaN(parsed) ? record.updatedAt : parsed;
};

function encodeToken(time: number, id: string): string {
  return Buffer.from(JSON.stringify([time, id]), 'utf8').toString('base64url');
}

function decodeToken(token: string): { time: number; id: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { time: value[0], id: value[1] };
    }
  } catch {
    // fall through: not a token we issued
  }
  return undefined;
}

/** The default store: a bounded map with TTL expiry of terminal tasks. Not shared between processes. */
export class InMemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  /** Terminal tasks: key -> the time they ended (their last update). */
  private readonly terminal = new Map<string, number>();
  /**
   * The same keys in the order they ended, oldest first. Entries whose task changed or left since
   * are skipped when reached; a queue (not Map order) because V8 Map iteration from the front
   * walks over every hole earlier deletions left there.
   */
  private ended: { key: string; endedAt: number }[] = [];
  private endedHead = 0;
  private readonly terminalTtlMs: number;
  private readonly maxTasks: number;
  private readonly maxEvents: number;
  private readonly now: () => number;
  private readonly sendKeys: IdempotencyKeys;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.terminalTtlMs = options.terminalTtlMs ?? 10 * 60_000;
    this.maxTasks = options.maxTasks ?? 10_000;
    this.maxEvents = options.maxEventsPerTask ?? 1_000;
    this.now = options.now ?? Date.now;
    if (!(this.maxTasks >= 1)) throw new RangeError(`expected maxTasks >= 1, got ${options.maxTasks}`);
    this.sendKeys = new IdempotencyKeys({
      ttlMs: options.idempotencyTtlMs ?? 10 * 60_000,
      maxKeys: options.maxIdempotencyKeys ?? 10_000,
      now: this.now,
    });
  }

  private expired(entry: Entry): boolean {
    return isTerminalTaskState(entry.record.task.status.state) && this.now() - entry.record.updatedAt > this.terminalTtlMs;
  }

  private live(key: TaskKey): Entry | undefined {
    const k = taskMapKey(key);
    const entry = this.entries.get(k);
    if (entry && this.expired(entry)) {
      this.remove(k);
      return undefined;
    }
    return entry;
  }

  private remove(k: string): void {
    this.entries.delete(k);
    this.terminal.delete(k);
  }

  /** Keeps the terminal index in step with a stored record. */
  private track(k: string, record: StoredTask): void {
    if (!isTerminalTaskState(record.task.status.state)) {
      this.terminal.delete(k);
      return;
    }
    this.terminal.set(k, record.updatedAt);
    this.ended.push({ key: k, endedAt: record.updatedAt });
  }

  /** The terminal task that ended first and is still stored as it ended. */
  private oldestTerminal(): { key: string; endedAt: number } | undefined {
    while (this.endedHead < this.ended.length) {
      const item = this.ended[this.endedHead]!;
      if (this.terminal.get(item.key) === item.endedAt) return item;
      this.endedHead += 1;
    }
    return undefined;
  }

  /**
   * Expires terminal tasks past their TTL, then evicts until there is room: the oldest terminal task
   * first, else the oldest task. Amortised O(1) per insert: both walks stop at the first survivor.
   */
  private sweep(): void {
    const now = this.now();
    for (let item = this.oldestTerminal(); item && now - item.endedAt > this.terminalTtlMs; item = this.oldestTerminal()) {
      this.remove(item.key);
    }
    while (this.entries.size >= this.maxTasks) {
      const oldest = this.oldestTerminal()?.key ?? this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
    if (this.endedHead > 1024 && this.endedHead * 2 > this.ended.length) {
      this.ended = this.ended.slice(this.endedHead);
      this.endedHead = 0;
    }
  }

  async get(key: TaskKey): Promise<StoredTask | undefined> {
    const entry = this.live(key);
    return entry ? cloneStored(entry.record) : undefined;
  }

  async upsert(record: StoredTask): Promise<void> {
    const key = { tenant: record.tenant, taskId: record.task.id };
    const k = taskMapKey(key);
    const existing = this.live(key);
    if (existing) {
      existing.record = cloneStored(record);
      this.track(k, existing.record);
      return;
    }
    this.sweep();
    const entry: Entry = { record: cloneStored(record), events: [], seq: 0, push: new Map() };
    this.entries.set(k, entry);
    this.track(k, entry.record);
  }

  async list(query: TaskListQuery): Promise<TaskListPage | undefined> {
    let cursor: { time: number; id: string } | undefined;
    if (query.pageToken) {
      cursor = decodeToken(query.pageToken);
      if (!cursor) return undefined;
    }
    const matches: { time: number; record: StoredTask }[] = [];
    for (const entry of this.entries.values()) {
      if (this.expired(entry)) continue;
      const { record } = entry;
      if (record.tenant !== query.tenant || record.owner !== query.owner) continue;
      if (query.contextId !== undefined && record.task.contextId !== query.contextId) continue;
      if (query.status !== undefined && record.task.status.state !== query.status) continue;
      const time = statusTime(record);
      if (query.statusTimestampAfter !== undefined && !(time > query.statusTimestampAfter)) continue;
      matches.push({ time, record });
    }
    matches.sort((a, b) => b.time - a.time || (a.record.task.id < b.record.task.id ? -1 : a.record.task.id > b.record.task.id ? 1 : 0));
    const after = cursor
      ? matches.filter((m) => m.time < cursor.time || (m.time === cursor.time && m.record.task.id > cursor.id))
      : matches;
    const page = after.slice(0, query.pageSize);
    const last = page.at(-1);
    const nextPageToken = after.length > page.length && last ? encodeToken(last.time, last.record.task.id) : '';
    return { records: page.map((m) => cloneStored(m.record)), nextPageToken, totalSize: matches.length };
  }

  async delete(key: TaskKey): Promise<boolean> {
    const k = taskMapKey(key);
    const existed = this.entries.has(k);
    this.remove(k);
    return existed;
  }

  async appendEvent(key: TaskKey, event: StreamResponse): Promise<number> {
    const entry = this.live(key);
    if (!entry) throw new Error('appendEvent on a task that is not stored');
    entry.seq += 1;
    entry.events.push({ seq: entry.seq, event: cloneStored(event) });
    if (entry.events.length > this.maxEvents) entry.events.splice(0, entry.events.length - this.maxEvents);
    return entry.seq;
  }

  async readEvents(key: TaskKey, afterSeq: number): Promise<StoredEvent[]> {
    const entry = this.live(key);
    if (!entry) return [];
    return entry.events.filter((e) => e.seq > afterSeq).map((e) => cloneStored(e));
  }

  async lastSeq(key: TaskKey): Promise<number> {
    return this.live(key)?.seq ?? 0;
  }

  async putPushConfig(key: TaskKey, config: TaskPushNotificationConfig & { id: string }): Promise<void> {
    this.live(key)?.push.set(config.id, cloneStored(config));
  }

  async listPushConfigs(key: TaskKey): Promise<(TaskPushNotificationConfig & { id: string })[]> {
    return [...(this.live(key)?.push.values() ?? [])].map((c) => cloneStored(c));
  }

  async deletePushConfig(key: TaskKey, id: string): Promise<boolean> {
    return this.live(key)?.push.delete(id) ?? false;
  }

  async claimSendKey(key: SendKey, taskId: string): Promise<string | undefined> {
    return this.sendKeys.claim(key, taskId);
  }

  async releaseSendKey(key: SendKey, taskId: string): Promise<void> {
    this.sendKeys.release(key, taskId);
  }
}
