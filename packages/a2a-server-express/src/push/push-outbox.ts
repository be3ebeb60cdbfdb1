import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';

/** One pending delivery as an outbox keeps it. */
export interface PushOutboxEntry {
  /** The delivery id: the `Idempotency-Key` receivers get, the same whichever replica sends it. */
  id: string;
  taskId: string;
  tenant?: string;
  config: TaskPushNotificationConfig;
  payload: StreamResponse;
}

/** Who holds entries, and for how long without renewal. */
export interface PushOutboxLease {
  /** The holder (one per push sender: a replica). */
  owner: string;
  leaseMs: number;
}

/**
 * Where a push sender keeps its pending deliveries until they end, so that another replica can
 * deliver what a dead one left (at least once: a delivery may reach a receiver twice, with the
 * same `Idempotency-Key`). Entries are held per owner: a holder's lease covers all its entries
 * and is renewed by each `enqueue` and `claim`.
 *
 * Contract (`pushOutboxContract` of `@a2aplane/a2a-server-express/testing` checks it):
 * - `enqueue` stores the entry, held by `lease.owner`; enqueuing an id again replaces its payload
 *   and keeps its place and holder;
 * - `claim` renews the caller's lease, then takes over up to `limit` entries whose holder's lease
 *   ended or that were released, oldest first per holder, and resolves them (`limit` 0: renews only);
 * - `ack` forgets the entry (delivered, or failed for good), whoever holds it;
 * - `release` gives an entry `owner` holds back at once (its sender closed before trying it).
 */
export interface PushOutbox {
  enqueue(entry: PushOutboxEntry, lease: PushOutboxLease): Promise<void>;
  claim(lease: PushOutboxLease, limit: number): Promise<PushOutboxEntry[]>;
  ack(id: string): Promise<void>;
  release(id: string, owner: string): Promise<void>;
}

/** The holder of released entries: its lease has always ended. */
const RELEASED = '';

export interface InMemoryPushOutboxOptions {
  /** Milliseconds since some epoch; default `Date.now`. */
  clock?: () => number;
}

/**
 * The outbox of one process (the reference for the contract; a sender without `outbox` keeps its
 * pending deliveries in memory the same way). Entries keep insertion order, which is enqueue order.
 */
export function createInMemoryPushOutbox(options: InMemoryPushOutboxOptions = {}): PushOutbox {
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { entry: PushOutboxEntry; owner: string }>();
  const leases = new Map<string, number>([[RELEASED, Number.NEGATIVE_INFINITY]]);
  const copy = (entry: PushOutboxEntry): PushOutboxEntry => structuredClone(entry);
  return {
    async enqueue(entry, lease) {
      leases.set(lease.owner, clock() + lease.leaseMs);
      const held = entries.get(entry.id);
      if (held) held.entry = copy(entry);
      else entries.set(entry.id, { entry: copy(entry), owner: lease.owner });
    },
    async claim(lease, limit) {
      const now = clock();
      leases.set(lease.owner, now + lease.leaseMs);
      const taken: PushOutboxEntry[] = [];
      for (const held of entries.values()) {
        if (taken.length >= limit) break;
        if (held.owner === lease.owner || (leases.get(held.owner) ?? Number.NEGATIVE_INFINITY) > now) continue;
        held.owner = lease.owner;
        taken.push(copy(held.entry));
      }
      return taken;
    },
    async ack(id) {
      entries.delete(id);
    },
    async release(id, owner) {
      const held = entries.get(id);
      if (held?.owner === owner) held.owner = RELEASED;
    },
  };
}
