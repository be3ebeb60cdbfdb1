import type { TaskKey } from '@a2aplane/a2a-server-express';
import type { RedisClientLike } from '../connection.js';
import type { RedisKeys } from '../keys.js';
import { LEASE, UNREGISTER } from './lease-scripts.js';

/** What a replica's lease calls on Redis with. */
export interface ReplicaLeaseDeps {
  client: RedisClientLike;
  keys: RedisKeys;
  /** One Redis round trip with the bus's deadline. */
  run: <T>(fn: () => Promise<T>) => Promise<T>;
  /** TTL of a runner key: a bound on what a lost removal leaks (the bus's `liveTtlMs`). */
  runnerTtlMs: number;
  onError: (error: unknown) => void;
}

/** A task of the replica's task set: its ref there, and its key. */
export type TaskEntry = [ref: string, key: TaskKey];

/**
 * LEASE: refreshes the lease of `replicaId` and adds `tasks` to its task set (replacing the set
 * when `replace`); resolves whether the lease was still there.
 */
export async function refreshLease(
  deps: ReplicaLeaseDeps,
  replicaId: string,
  leaseMs: number,
  tasks: TaskEntry[],
  replace: boolean,
): Promise<boolean> {
  const { client, keys, run } = deps;
  const runners = tasks.map(([, key]) => keys.runner(key.tenant, key.taskId));
  const reply = await run(() =>
    LEASE.run(
      client,
      [keys.replicaLease(replicaId), keys.replicas(), keys.replicaTasks(replicaId), ...runners],
      [replicaId, String(leaseMs), replace ? '1' : '0', String(deps.runnerTtlMs), ...tasks.map(([ref]) => ref)],
    ),
  );
  return Number(reply) === 1;
}

/** UNREGISTER: removes `tasks` from the task set of `replicaId` (and their runner keys). */
export function unregisterTasks(deps: ReplicaLeaseDeps, replicaId: string, tasks: TaskEntry[]): Promise<unknown> {
  const { client, keys, run } = deps;
  return run(() =>
    UNREGISTER.run(
      client,
      [keys.replicaTasks(replicaId), ...tasks.map(([, key]) => keys.runner(key.tenant, key.taskId))],
      [replicaId, ...tasks.map(([ref]) => ref)],
    ),
  );
}
