import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ContractTestApi } from '../contract-api.js';
import type { BusFixture } from './fixture.js';

/** The TaskEventBus contract: ids, reads after an id, tasks kept apart, and replay that goes live. */
export function idAndReplayContract(
  t: ContractTestApi,
  { replicas, key, working, completed, numbers, drain, subscribeOrFail, status }: BusFixture,
): void {
  t.it('gives every event an id; read after an id returns exactly the later events, in publish order', async () => {
    const [a, b] = await replicas();
    const k = key();
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push(await a.publish(k, working(k.taskId, n)));
    assert.equal(new Set(ids).size, 5);
    const all = await b.read(k);
    assert.ok(all);
    assert.deepEqual(
      all.events.map((r) => r.id),
      ids,
    );
    assert.deepEqual(numbers(all.events), [1, 2, 3, 4, 5]);
    assert.equal(all.lastId, ids[4]);
    assert.equal(all.gap, false);
    assert.deepEqual(all.events[2], { id: ids[2], event: status(k.taskId, 'TASK_STATE_WORKING', 3), final: false, revision: 3 });
    // Ids are ordered: after each id come exactly the events published later.
    for (let i = 0; i < ids.length; i++) {
      const after = await b.read(k, ids[i]);
      assert.deepEqual(
        after?.events.map((r) => r.id),
        ids.slice(i + 1),
      );
      assert.equal(after?.gap, false);
    }
    // Published from the other replica, the order goes on.
    const sixth = await b.publish(k, completed(k.taskId, 6));
    assert.deepEqual(
      (await a.read(k, ids[4]))?.events.map((r) => r.id),
      [sixth],
    );
  });

  t.it('keeps tasks apart and answers a malformed id with undefined', async () => {
    const [a] = await replicas();
    const one = key();
    const two = { tenant: one.tenant, taskId: randomUUID() };
    await a.publish(one, working(one.taskId, 1));
    await a.publish(two, working(two.taskId, 2));
    assert.deepEqual(numbers((await a.read(one))?.events ?? []), [1]);
    assert.deepEqual(numbers((await a.read(two))?.events ?? []), [2]);
    const none = await a.read(key());
    assert.deepEqual(none?.events, []);
    assert.equal(none?.lastId, undefined);
    assert.equal(await a.read(one, 'not an event id'), undefined);
    assert.equal(await a.subscribe(one, { afterId: 'not an event id' }), undefined);
  });

  t.it('replays after an id, then goes live, without a gap or a duplicate', async () => {
    const [a, b] = await replicas();
    const k = key();
    const first = await a.publish(k, working(k.taskId, 1));
    await a.publish(k, working(k.taskId, 2));
    await a.publish(k, working(k.taskId, 3));
    const subscription = await subscribeOrFail(b, k, first);
    assert.equal(subscription.startId, first);
    assert.equal(subscription.gap, false);
    const drained = drain(subscription);
    // Published while the replay is read, from both replicas.
    await Promise.all([a.publish(k, working(k.taskId, 4))]);
    await b.publish(k, working(k.taskId, 5));
    await a.publish(k, completed(k.taskId, 6));
    assert.deepEqual(numbers(await drained), [2, 3, 4, 5, 6]);
  });
}
