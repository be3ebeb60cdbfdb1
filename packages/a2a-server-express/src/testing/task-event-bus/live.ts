import assert from 'node:assert/strict';
import type { TaskEventRecord } from '../../bus/task-event-bus.js';
import { type ContractTestApi, eventually, sleep } from '../contract-api.js';
import type { BusFixture } from './fixture.js';

/** The TaskEventBus contract: live delivery across replicas, lossless resume and the end of a subscription. */
export function liveContract(
  t: ContractTestApi,
  { timeout, replicas, key, working, completed, numbers, drain, subscribeOrFail, status }: BusFixture,
): void {
  t.it('delivers live events published on another replica, and ends after the final one', async () => {
    const [a, b] = await replicas();
    const k = key();
    const before = await a.publish(k, working(k.taskId, 1));
    const subscription = await subscribeOrFail(b, k);
    assert.equal(subscription.startId, before);
    const drained = drain(subscription);
    const ids = [
      await a.publish(k, working(k.taskId, 2)),
      await a.publish(k, working(k.taskId, 3)),
      await a.publish(k, completed(k.taskId, 4)),
    ];
    const got = await drained;
    assert.deepEqual(
      got.map((r) => r.id),
      ids,
    );
    assert.deepEqual(numbers(got), [2, 3, 4]);
    assert.equal(got.at(-1)?.final, true);
  });

  t.it('resumes losslessly from the last id a consumer saw, on another replica', async () => {
    const [a, b] = await replicas();
    const k = key();
    const seen: TaskEventRecord[] = [];
    const firstSubscription = await subscribeOrFail(a, k);
    const producer = (async () => {
      for (let n = 1; n <= 40; n++) {
        await a.publish(k, n === 40 ? completed(k.taskId, n) : working(k.taskId, n));
        if (n % 7 === 0) await sleep(1);
      }
    })();
    // The consumer drops after 10 events, in the middle of the stream.
    for await (const record of firstSubscription) {
      seen.push(record);
      if (seen.length === 10) break;
    }
    const resumed = await subscribeOrFail(b, k, seen.at(-1)?.id);
    for (const record of await drain(resumed)) seen.push(record);
    await producer;
    assert.deepEqual(
      numbers(seen),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    assert.equal(new Set(seen.map((r) => r.id)).size, 40);
  });

  t.it('ends a replay whose newest event is final at once; one that passes an interrupted state goes on', async () => {
    const [a, b] = await replicas();
    const k = key();
    const first = await a.publish(k, working(k.taskId, 1));
    await a.publish(k, { event: status(k.taskId, 'TASK_STATE_INPUT_REQUIRED', 2), final: true, revision: 2 });
    const ended = await subscribeOrFail(b, k, first);
    assert.deepEqual(numbers(await drain(ended)), [2]);
    await a.publish(k, working(k.taskId, 3));
    const goingOn = await subscribeOrFail(b, k, first);
    const drained = drain(goingOn);
    await a.publish(k, completed(k.taskId, 4));
    assert.deepEqual(numbers(await drained), [2, 3, 4]);
  });

  t.it('stops a subscription on close() and on its abort signal, without an error', async () => {
    const [a, b] = await replicas();
    const k = key();
    const closed = await subscribeOrFail(b, k);
    const closedDrain = drain(closed);
    await a.publish(k, working(k.taskId, 1));
    await eventually(async () => (await b.read(k))?.events.length === 1, timeout, 'the event to be stored');
    closed.close();
    await closedDrain;
    const abort = new AbortController();
    const aborted = await subscribeOrFail(b, k, undefined, abort.signal);
    const abortedDrain = drain(aborted);
    abort.abort();
    assert.deepEqual(await abortedDrain, []);
    // A bus that closes ends its own subscriptions, not the other replica's.
    const onA = await subscribeOrFail(a, k);
    const onB = await subscribeOrFail(b, k);
    const drainA = drain(onA);
    const drainB = drain(onB);
    await b.close();
    assert.deepEqual(await drainB, []);
    await a.publish(k, completed(k.taskId, 2));
    assert.deepEqual(numbers(await drainA), [2]);
  });
}
