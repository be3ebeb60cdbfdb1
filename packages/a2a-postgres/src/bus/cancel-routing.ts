import type { TaskCancelHandler, TaskCancelRequest, TaskKey } from '@a2aplane/a2a-server-express';
import type { Pool } from 'pg';
import { hasNul, query } from '../sql.js';
import type { Statement } from '../statement.js';
import type { Listener, ReplicaLock } from './listener.js';

/** One string for a task key (tenant and id cannot run together: neither holds U+0000 here). */
const taskMapKey = (key: TaskKey): string => `${key.tenant}\u0000${key.taskId}`;

interface Registration {
  key: TaskKey;
  handler: TaskCancelHandler;
}

interface CancelRoutingOptions {
  pool: Pool;
  listener: Listener;
  channel: string;
  timeoutMs: number;
  statements: {
    registerRunner: Statement;
    unregisterRunner: Statement;
    unregisterReplica: Statement;
    requestCancel: Statement;
    takeCancel: Statement;
  };
  onError(error: unknown): void;
}

/**
 * Cancel fan-out: `onCancel` records in `cancel_runners` that this replica runs a task, under the
 * advisory lock its listening session holds; `requestCancel` on any replica stores the request and
 * NOTIFYs the runner only while that lock is held (a killed replica's session ends and its lock
 * with it, so nobody waits on a dead runner). The runner takes the request by id and calls its handler.
 */
export class CancelRouting {
  private readonly registrations = new Map<string, Registration>();

  constructor(private readonly options: CancelRoutingOptions) {}

  private run(stmt: Statement, values: unknown[]) {
    return query<Record<string, unknown>>(this.options.pool, this.options.timeoutMs, stmt, values);
  }

  private record(registration: Registration, lock: ReplicaLock): void {
    const { key } = registration;
    this.run(this.options.statements.registerRunner, [key.tenant, key.taskId, lock.hi, lock.lo]).catch(this.options.onError);
  }

  add(key: TaskKey, handler: TaskCancelHandler): () => void {
    if (hasNul(key.tenant, key.taskId)) return () => {};
    const mapKey = taskMapKey(key);
    const registration = { key, handler };
    this.registrations.set(mapKey, registration);
    const { listener } = this.options;
    if (listener.lock) this.record(registration, listener.lock);
    // Not listening yet: recorded once connected (`connected`).
    else listener.ready(this.options.timeoutMs).catch(() => undefined);
    return () => {
      if (this.registrations.get(mapKey) !== registration) return;
      this.registrations.delete(mapKey);
      const lock = listener.lock;
      if (lock) this.run(this.options.statements.unregisterRunner, [key.tenant, key.taskId, lock.hi, lock.lo]).catch(this.options.onError);
    };
  }

  /** A new session (new lock): every registration of this replica is recorded again under it. */
  connected(lock: ReplicaLock): void {
    for (const registration of this.registrations.values()) this.record(registration, lock);
  }

  async request(key: TaskKey, request: TaskCancelRequest, now: number): Promise<boolean> {
    if (hasNul(key.tenant, key.taskId)) return false;
    const body = JSON.stringify(request.metadata === undefined ? {} : { metadata: request.metadata });
    const rows = await this.run(this.options.statements.requestCancel, [key.tenant, key.taskId, body, now, this.options.channel]);
    return rows.length > 0;
  }

  /** A cancel notification: `hi.lo id`; taken (deleted) and handed to the handler when it is for this replica. */
  notified(payload: string): void {
    const lock = this.options.listener.lock;
    const [target, id] = payload.split(' ');
    if (!lock || target !== `${lock.hi}.${lock.lo}` || id === undefined || !/^\d+$/.test(id)) return;
    this.run(this.options.statements.takeCancel, [id])
      .then((rows) => {
        const row = rows[0] as { tenant: string; task_id: string; request: TaskCancelRequest } | undefined;
        if (!row) return;
        const registration = this.registrations.get(taskMapKey({ tenant: row.tenant, taskId: row.task_id }));
        registration?.handler(row.request);
      })
      .catch(this.options.onError);
  }

  /** Drops every handler, and this replica's rows while its session is still up. */
  async close(): Promise<void> {
    this.registrations.clear();
    const lock = this.options.listener.lock;
    if (lock) await this.run(this.options.statements.unregisterReplica, [lock.hi, lock.lo]).catch(() => undefined);
  }
}
