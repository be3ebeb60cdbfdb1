import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { TaskKey } from '@a2aplane/a2a-server-express';
import { taskRef } from '../keys.js';
import { type ReplicaLeaseDeps, refreshLease, type TaskEntry, unregisterTasks } from './lease-commands.js';
import { TaskSetRemovals } from './task-set-removals.js';

/** Orphaned-task recovery of the Redis bus (decision 0032). */
export interface OrphanRecoveryOptions {
  /** This replica's id, unique per process. Default a random UUID. Logged, never sent to clients. */
  replicaId?: string;
  /**
   * How long a replica counts as alive after its last heartbeat. A replica cut off from Redis for
   * less than `leaseMs - heartbeatMs` keeps its tasks; past the lease they end FAILED
   * (`REPLICA_LOST`). Default 10 000 ms.
   */
  leaseMs?: number;
  /** Heartbeat period, at most half the lease. Default a third of `leaseMs`. */
  heartbeatMs?: number;
  /** How often this replica looks for tasks of replicas whose lease expired. Default 5 000 ms. */
  sweepMs?: number;
  /** Told of each task this replica ended because the replica running it was lost (for logs, metrics). */
  onOrphanedTask?: (info: { key: TaskKey; replicaId: string }) => void;
}

const checkMs = (name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (!(Number.isSafeInteger(value) && value >= min && value <= max))
    throw new RangeError(`expected ${name} to be an integer in [${min}, ${max}], got ${value}`);
  return value;
};

/**
 * This replica's liveness lease and the record of the tasks it runs. The heartbeat (an unref'd
 * timer) refreshes a key with a TTL on Redis's clock; the bus registers each task whose executor
 * runs here (its `onCancel` registration) in this replica's task set. When a heartbeat finds its
 * own lease gone (this replica was cut off for a whole lease, or Redis lost its data) it rewrites
 * the task set, and it counts as freshly connected: see `canJudgeOthers`.
 */
export class ReplicaLease {
  readonly id: string;
  readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly owned = new Map<string, TaskKey>();
  private readonly removals: TaskSetRemovals;
  /** Rewrite the task set on the next heartbeat (a registration failed, or the lease had lapsed). */
  private resync = true;
  /** performance.now() of the first heartbeat of the current unbroken run of successful ones. */
  private healthySince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private closed = false;

  constructor(
    options: OrphanRecoveryOptions,
    private readonly deps: ReplicaLeaseDeps,
  ) {
    this.id = options.replicaId ?? randomUUID();
    if (typeof this.id !== 'string' || this.id.length === 0 || this.id.length > 200)
      throw new RangeError('replicaId must be a non-empty string of at most 200 characters');
    this.leaseMs = checkMs('leaseMs', options.leaseMs ?? 10_000, 100);
    this.heartbeatMs = checkMs('heartbeatMs', options.heartbeatMs ?? Math.floor(this.leaseMs / 3), 10, Math.floor(this.leaseMs / 2));
    this.removals = new TaskSetRemovals(
      (tasks) => unregisterTasks(this.deps, this.id, tasks),
      (ref) => this.owned.has(ref),
      deps.onError,
    );
  }

  start(): void {
    void this.heartbeat();
    this.timer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.timer.unref();
  }

  /** One heartbeat at a time; resolves when the current one is done. */
  heartbeat(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.beating ??= this.beat().finally(() => {
      this.beating = undefined;
    });
    return this.beating;
  }

  /**
   * True once this replica's heartbeats have succeeded for a whole lease without a break. Only
   * then may it declare others dead: after an outage every replica's lease may have lapsed, and
   * the live ones need up to a heartbeat (plus a reconnection) to renew theirs.
   */
  canJudgeOthers(): boolean {
    return this.healthySince !== undefined && performance.now() - this.healthySince >= this.leaseMs;
  }

  /** The executors of `tasks` run here: one script records them all (the bus batches a turn's registrations). */
  register(tasks: TaskKey[]): void {
    const entries: TaskEntry[] = [];
    for (const key of tasks) {
      const ref = taskRef(key.tenant, key.taskId);
      this.owned.set(ref, key);
      this.removals.forget(ref);
      entries.push([ref, key]);
    }
    if (this.closed || entries.length === 0) return;
    void this.lease(entries, false).catch((error: unknown) => {
      this.resync = true;
      this.deps.onError(error);
    });
  }

  /** A commit recorded `key` with its own copy of the LEASE script (decision 0039); `had`: the lease was still held. */
  recorded(key: TaskKey, had: boolean): void {
    const ref = taskRef(key.tenant, key.taskId);
    this.owned.set(ref, key);
    this.removals.forget(ref);
    this.noteLease(had);
  }

  /** The run of `key` ended here. */
  unregister(key: TaskKey): void {
    const ref = taskRef(key.tenant, key.taskId);
    if (!this.owned.delete(ref)) return;
    this.removals.add(ref, key);
  }

  /** The lease keys and arguments of the registration of `key`, as the LEASE script takes them (one task, no rewrite). */
  registration(key: TaskKey): { keys: string[]; args: string[] } {
    const { keys } = this.deps;
    return {
      keys: [keys.replicaLease(this.id), keys.replicas(), keys.replicaTasks(this.id), keys.runner(key.tenant, key.taskId)],
      args: [this.id, String(this.leaseMs), String(this.deps.runnerTtlMs), taskRef(key.tenant, key.taskId)],
    };
  }

  /** What a lease refresh found (true: still held), from a heartbeat or a commit that carried a registration. */
  noteLease(had: boolean, replace = false): void {
    const now = performance.now();
    // A lapsed lease means this replica (or Redis) was away: it judges nobody for a lease from now.
    if (!had) this.healthySince = now;
    else this.healthySince ??= now;
    if (!had && !replace) this.resync = true;
  }

  /** Stops the heartbeat. The lease then expires by itself: tasks still registered are swept after it. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.removals.close();
  }

  private async beat(): Promise<void> {
    const replace = this.resync;
    this.resync = false;
    try {
      const had = await this.lease(replace ? [...this.owned] : [], replace);
      if (!had && !replace) {
        // The lease had lapsed: registrations made meanwhile may be gone, rewrite the set now.
        this.resync = true;
        await this.beat();
        return;
      }
      await this.removals.retry();
    } catch (error) {
      if (replace) this.resync = true;
      this.healthySince = undefined;
      this.deps.onError(error);
    }
  }

  /** Refreshes the lease and adds `tasks` (replacing the set when `replace`); resolves whether the lease was still there. */
  private async lease(tasks: TaskEntry[], replace: boolean): Promise<boolean> {
    const had = await refreshLease(this.deps, this.id, this.leaseMs, tasks, replace);
    this.noteLease(had, replace);
    return had;
  }
}
