import type { PushOutbox, PushOutboxEntry, PushOutboxLease } from '@a2aplane/a2a-server-express';
import { guardClient, type RedisClientLike, withDeadline } from '../connection.js';
import { ACK, CLAIM, ENQUEUE, RELEASE } from './outbox-scripts.js';

export interface RedisPushOutboxOptions {
  /** A connected node-redis client (the outbox neither connects nor closes it). */
  client: RedisClientLike;
  /** Starts every key of this deployment, e.g. `a2a:prod:`; the replicas of one agent share it. */
  keyPrefix: string;
  /** Deadline of one call; past it the call fails with `RedisUnavailableError` (503). Default 2 000 ms. */
  commandTimeoutMs?: number;
}

/** The holder of released entries (an encoded holder never starts with `%r`: `%` is followed by hex there). */
const RELEASED = '%released';

/** Holder names go into key names: encoded, so none can run into another key. */
const holderPart = (owner: string): string => encodeURIComponent(owner);

function parseEntry(raw: unknown): PushOutboxEntry | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const value = JSON.parse(raw) as PushOutboxEntry;
    return typeof value?.id === 'string' && typeof value.taskId === 'string' && typeof value.config?.url === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The push outbox on Redis (`PushOutbox` of `@a2aplane/a2a-server-express`): pass it as
 * `createPushSender({ outbox })` on every replica. Pending deliveries are kept until they end;
 * when a replica dies, its lease (`outboxLeaseMs` of the sender, renewed every third of it) ends
 * and another replica's sender takes its deliveries over, in order, with their idempotency keys.
 * Every call is one Lua script; time is Redis's clock, so replicas' clocks need not agree.
 */
export function createRedisPushOutbox(options: RedisPushOutboxOptions): PushOutbox {
  const { client } = options;
  if (typeof client?.sendCommand !== 'function') throw new TypeError('expected client to be a node-redis client');
  if (typeof options.keyPrefix !== 'string' || options.keyPrefix.length > 200)
    throw new TypeError('expected keyPrefix to be a string of at most 200 characters');
  const timeout = options.commandTimeoutMs ?? 2_000;
  if (!Number.isFinite(timeout) || timeout <= 0) throw new RangeError(`expected commandTimeoutMs to be > 0, got ${String(timeout)}`);
  guardClient(client);
  const base = `${options.keyPrefix}{push-outbox}:`;
  const entries = `${base}entries`;
  const where = `${base}where`;
  const owners = `${base}owners`;
  const seq = `${base}seq`;
  const held = `${base}held:`;
  const checkLease = (lease: PushOutboxLease): void => {
    if (typeof lease?.owner !== 'string' || !(lease.leaseMs >= 1)) throw new TypeError('expected { owner, leaseMs >= 1 }');
  };

  return {
    async enqueue(entry, lease) {
      checkLease(lease);
      const args = [entry.id, JSON.stringify(entry), holderPart(lease.owner), String(Math.ceil(lease.leaseMs)), held];
      await withDeadline(timeout, () => ENQUEUE.run(client, [entries, where, owners, seq], args));
    },
    async claim(lease, limit) {
      checkLease(lease);
      // 0 still runs the script: it renews the lease.
      const count = Math.max(0, Math.floor(limit));
      const args = [holderPart(lease.owner), String(Math.ceil(lease.leaseMs)), String(count), held];
      const raw = await withDeadline(timeout, () => CLAIM.run(client, [entries, where, owners], args));
      const claimed: PushOutboxEntry[] = [];
      for (const item of Array.isArray(raw) ? raw : []) {
        const entry = parseEntry(item);
        if (entry) claimed.push(entry);
      }
      return claimed;
    },
    async ack(id) {
      await withDeadline(timeout, () => ACK.run(client, [entries, where], [id, held]));
    },
    async release(id, owner) {
      await withDeadline(timeout, () => RELEASE.run(client, [where, owners], [id, holderPart(owner), held, RELEASED]));
    },
  };
}
