/**
 * The key names of one deployment. Every name starts with `keyPrefix` so several deployments (and
 * test runs) share one Redis; tenant, task and owner ids are URI-encoded so no id can run into the
 * next part or forge another key. A task's keys share a `{hash tag}` so they map to one cluster slot.
 */
export interface RedisKeys {
  readonly prefix: string;
  /** The task record (a hash: `rec`, `rev`, `owner`). */
  task(tenant: string, taskId: string): string;
  /** The task's event log (a stream). */
  events(tenant: string, taskId: string): string;
  /** The task's push configs (a hash: config id -> JSON). */
  push(tenant: string, taskId: string): string;
  /** The pub/sub channel the replica running the task listens on for cancel requests. */
  cancelChannel(tenant: string, taskId: string): string;
  /** ListTasks index of one (tenant, owner): a hash of task id -> JSON [contextId, state, statusTime, expiresAt]. */
  summary(tenant: string, owner: string): string;
  /** One (tenant, owner)'s live tasks by update time (a sorted set); `<share>:bytes` holds their bytes (decision 0069). */
  share(tenant: string, owner: string): string;
  /** Tasks that are not terminal (a sorted set by update time), for the capacity check. */
  live(): string;
  /** Terminal tasks (a sorted set by the time they ended): evicted oldest first at capacity. */
  ended(): string;
  /** An idempotent SendMessage key. */
  send(tenant: string, owner: string, messageId: string, fingerprint: string): string;
  /** Ids of the replicas that registered running tasks (a set); the sweepers read it. */
  replicas(): string;
  /** A replica's liveness lease (a string with a TTL, refreshed by its heartbeat). */
  replicaLease(replicaId: string): string;
  /** The tasks a replica runs (a set of task refs, see `taskRef`). */
  replicaTasks(replicaId: string): string;
  /** The id of the replica running the task's executor (a string; absent between runs). */
  runner(tenant: string, taskId: string): string;
  /** Held by the one sweeper ending an orphaned task (a string with a TTL). */
  orphanClaim(tenant: string, taskId: string): string;
}

/** A task as a member of a replica's task set: `[tenant, taskId]` as JSON (no separator to escape). */
export const taskRef = (tenant: string, taskId: string): string => JSON.stringify([tenant, taskId]);

/** The task of a ref, or `undefined` for a member this package did not write. */
export function parseTaskRef(ref: string): { tenant: string; taskId: string } | undefined {
  try {
    const value: unknown = JSON.parse(ref);
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string')
      return { tenant: value[0], taskId: value[1] };
  } catch {
    // not a ref
  }
  return undefined;
}

const enc = encodeURIComponent;

/** Rejects prefixes that could collide with another deployment's keys or carry glob characters into SCAN patterns. */
function checkKeyPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 200) {
    throw new RangeError('keyPrefix must be a non-empty string of at most 200 characters');
  }
  if (/[\s*?[\]{}\\]/.test(prefix)) throw new RangeError('keyPrefix must not contain spaces, braces or glob characters (* ? [ ] \\)');
  return prefix;
}

export function createKeys(keyPrefix: string): RedisKeys {
  const prefix = checkKeyPrefix(keyPrefix);
  const tag = (tenant: string, taskId: string): string => `{${enc(tenant)}:${enc(taskId)}}`;
  return {
    prefix,
    task: (tenant, taskId) => `${prefix}task:${tag(tenant, taskId)}`,
    events: (tenant, taskId) => `${prefix}events:${tag(tenant, taskId)}`,
    push: (tenant, taskId) => `${prefix}push:${tag(tenant, taskId)}`,
    cancelChannel: (tenant, taskId) => `${prefix}cancel:${tag(tenant, taskId)}`,
    summary: (tenant, owner) => `${prefix}summary:${enc(tenant)}:${enc(owner)}`,
    share: (tenant, owner) => `${prefix}share:${enc(tenant)}:${enc(owner)}`,
    live: () => `${prefix}live`,
    ended: () => `${prefix}ended`,
    send: (tenant, owner, messageId, fingerprint) => `${prefix}send:${enc(tenant)}:${enc(owner)}:${enc(messageId)}:${enc(fingerprint)}`,
    replicas: () => `${prefix}replicas`,
    replicaLease: (replicaId) => `${prefix}replica:${enc(replicaId)}`,
    replicaTasks: (replicaId) => `${prefix}replica-tasks:${enc(replicaId)}`,
    runner: (tenant, taskId) => `${prefix}runner:${tag(tenant, taskId)}`,
    orphanClaim: (tenant, taskId) => `${prefix}orphan-claim:${tag(tenant, taskId)}`,
  };
}
