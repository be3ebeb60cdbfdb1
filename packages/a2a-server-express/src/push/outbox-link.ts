import type { Delivery } from './lanes.js';
import type { PushOutbox, PushOutboxEntry } from './push-outbox.js';
import type { PushDeliveryEvent, PushNotifyInput } from './push-types.js';

/** Entries taken over from dead replicas per claim. */
const CLAIM_BATCH = 256;

interface OutboxLinkOptions {
  outbox: PushOutbox | undefined;
  owner: string;
  leaseMs: number;
  emit(event: PushDeliveryEvent): void;
  /** A stored delivery may now be attempted. */
  ready(): void;
}

const toEntry = ({ input, base }: Delivery): PushOutboxEntry => ({
  id: base.deliveryId,
  taskId: input.taskId,
  ...(input.tenant === undefined ? {} : { tenant: input.tenant }),
  config: input.config,
  payload: input.payload,
});

/** What the sender does with its outbox (none: everything stays in memory and these do nothing). */
export function createOutboxLink(options: OutboxLinkOptions) {
  const { outbox, owner, leaseMs, emit } = options;
  const lease = { owner, leaseMs };
  return {
    /**
     * Stores a delivery before its first attempt, so a replica that dies leaves it to another. It
     * counts as stored from here on: an `ack` sent meanwhile follows the `enqueue` on the connection.
     */
    store(delivery: Delivery): void {
      if (!outbox) return;
      delivery.ready = false;
      delivery.persisted = true;
      const ready = () => {
        delivery.ready = true;
        options.ready();
      };
      // The outbox down: delivered from memory all the same (this replica's death would lose it).
      outbox.enqueue(toEntry(delivery), lease).then(ready, () => {
        delivery.persisted = false;
        ready();
      });
    },
    /** The outbox forgets a delivery that ended here (a failure to say so only costs a duplicate later). */
    ack(delivery: Delivery): void {
      if (delivery.persisted) outbox?.ack(delivery.base.deliveryId).catch(() => undefined);
    },
    /**
     * A delivery this sender will not try (it is closing): with an outbox it goes back for another
     * replica; without one it is dropped or, when it was already tried, failed.
     */
    handOver(delivery: Delivery, reason: string): void {
      const { base } = delivery;
      if (delivery.persisted && outbox) {
        outbox.release(base.deliveryId, owner).catch(() => undefined);
        emit({ type: 'dropped', reason: 'handed-over', ...base });
      } else if (delivery.attempt === 0) emit({ type: 'dropped', reason: 'closed', ...base });
      else emit({ type: 'failed', attempts: delivery.attempt, reason, ...base });
    },
    /**
     * Every third of the lease: renews it and takes over the deliveries of replicas whose lease
     * ended, batch after batch while `room()` (with none, it only renews). Returns the stop function.
     */
    startClaims(room: () => boolean, take: (input: PushNotifyInput, id: string) => void, closed: () => boolean): () => void {
      if (!outbox) return () => undefined;
      const claim = async (): Promise<void> => {
        for (let full = true; full && !closed(); ) {
          const limit = room() ? CLAIM_BATCH : 0;
          const entries = await outbox.claim(lease, limit);
          full = limit > 0 && entries.length === limit;
          for (const entry of entries) {
            if (closed()) {
              outbox.release(entry.id, owner).catch(() => undefined);
              continue;
            }
            const input: PushNotifyInput = { config: entry.config, payload: entry.payload, taskId: entry.taskId };
            if (entry.tenant !== undefined) input.tenant = entry.tenant;
            take(input, entry.id);
          }
        }
      };
      const timer = setInterval(() => void claim().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
      timer.unref?.();
      return () => clearInterval(timer);
    },
  };
}
