import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PushOutbox, PushOutboxEntry } from '../push/push-outbox.js';
import { type ContractTestApi, sleep } from './contract-api.js';

export interface PushOutboxContractOptions {
  /** A fresh outbox; each test makes its own (on a shared backend: under a key prefix of its own). */
  create(): PushOutbox | Promise<PushOutbox>;
  /** Releases an outbox made by `create` (connections, keys). */
  dispose?(outbox: PushOutbox): void | Promise<void>;
}

/**
 * The `PushOutbox` contract: entries held per owner under a lease, taken over in enqueue order
 * once the lease ends, acknowledged once, released at once. Every implementation runs it (the
 * in-memory one in this package, the Redis one in `@a2aplane/a2a-redis`).
 */
export function describePushOutboxContract(name: string, options: PushOutboxContractOptions, t: ContractTestApi): void {
  const made: PushOutbox[] = [];
  const open = async (): Promise<PushOutbox> => {
    const outbox = await options.create();
    made.push(outbox);
    return outbox;
  };
  const entry = (n: number, taskId = 't1'): PushOutboxEntry => ({
    id: randomUUID(),
    taskId,
    tenant: 'acme',
    config: { id: 'cfg', url: 'https://hooks.example.com/a2a', token: 'tok' },
    payload: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } },
  });
  const ids = (entries: PushOutboxEntry[]): string[] => entries.map((e) => e.id);

  t.describe(`PushOutbox contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const outbox of made.splice(0)) await options.dispose?.(outbox);
    });

    t.it('nothing is claimable while its holder renews its lease', async () => {
      const outbox = await open();
      await outbox.enqueue(entry(1), { owner: 'a', leaseMs: 10_000 });
      assert.deepEqual(await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10), []);
      // The holder's own claim takes nothing of its own either.
      assert.deepEqual(await outbox.claim({ owner: 'a', leaseMs: 10_000 }, 10), []);
    });

    t.it('once a holder stops renewing, another takes its entries over, oldest first, each exactly once', async () => {
      const outbox = await open();
      const written = [entry(1), entry(2), entry(3), entry(4, 't2')];
      for (const e of written) await outbox.enqueue(e, { owner: 'dead', leaseMs: 50 });
      await sleep(120);
      const first = await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 2);
      const rest = await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10);
      assert.deepEqual([...ids(first), ...ids(rest)], ids(written));
      assert.deepEqual(first[0], written[0]);
      // Held by b now: nobody else gets them, and b does not get them twice.
      assert.deepEqual(await outbox.claim({ owner: 'c', leaseMs: 10_000 }, 10), []);
      assert.deepEqual(await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10), []);
    });

    t.it('ack forgets an entry whoever holds it; release hands it back at once', async () => {
      const outbox = await open();
      const [one, two] = [entry(1), entry(2)];
      await outbox.enqueue(one, { owner: 'a', leaseMs: 10_000 });
      await outbox.enqueue(two, { owner: 'a', leaseMs: 10_000 });
      await outbox.ack(one.id);
      // Releasing an entry one does not hold changes nothing.
      await outbox.release(two.id, 'someone-else');
      assert.deepEqual(await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10), []);
      await outbox.release(two.id, 'a');
      assert.deepEqual(ids(await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10)), [two.id]);
      await outbox.ack(two.id);
      await outbox.ack(two.id);
      await outbox.release(two.id, 'b');
      assert.deepEqual(await outbox.claim({ owner: 'c', leaseMs: 10_000 }, 10), []);
    });

    t.it('enqueuing an id again replaces its payload and keeps its place and holder', async () => {
      const outbox = await open();
      const [one, two] = [entry(1), entry(2)];
      await outbox.enqueue(one, { owner: 'a', leaseMs: 10_000 });
      await outbox.enqueue(two, { owner: 'a', leaseMs: 10_000 });
      const replaced: PushOutboxEntry = {
        ...one,
        payload: { task: { id: 't1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
      };
      await outbox.enqueue(replaced, { owner: 'a', leaseMs: 10_000 });
      await outbox.release(one.id, 'a');
      await outbox.release(two.id, 'a');
      assert.deepEqual(await outbox.claim({ owner: 'b', leaseMs: 10_000 }, 10), [replaced, two]);
    });
  });
}
