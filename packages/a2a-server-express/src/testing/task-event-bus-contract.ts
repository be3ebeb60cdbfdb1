import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { StreamResponse, TaskState } from '@a2aplane/a2a-types';
import type { TaskCancelRequest, TaskEventBus, TaskEventRecord, TaskSubscription } from '../bus/task-event-bus.js';
import type { TaskKey } from '../store/task-store.js';
import { type ContractTestApi, eventually, sleep, within } from './contract-api.js';

/** One shared backend, as replicas share one Redis: every `connect` is another replica's bus on it. */
export interface TaskEventBusContractBackend {
  connect(): TaskEventBus | Promise<TaskEventBus>;
  /** Releases the backend once the buses made by `connect` are closed. */
  dispose?(): void | Promise<void>;
}

export interface TaskEventBusContractOptions {
  /** A backend for one test. Tests use task keys of their own, so backends may share storage across tests and runs. */
  create(): TaskEventBusContractBackend | Promise<TaskEventBusContractBackend>;
  /** Longest wait for something delivered across buses (a cancel, a live event). Default 2 000 ms. */
  deliveryTimeoutMs?: number;
}

const status = (taskId: string, state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, n: number): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'c', status: { state }, metadata: { n } },
});

/**
 * The `TaskEventBus` contract: ids increasing per task and usable to resume, replay after an id,
 * live delivery, lossless resume, the end of a subscription, and cancel fan-out, all seen
 * across two buses of one backend (two replicas). Every implementation runs it (the in-memory
 * bus in this package, the Redis Streams bus in `@a2aplane/a2a-redis`).
 */
export function describeTaskEventBusContract(name: string, options: TaskEventBusContractOptions, t: ContractTestApi): void {
  const timeout = options.deliveryTimeoutMs ?? 2_000;
  const buses: TaskEventBus[] = [];
  const backends: TaskEventBusContractBackend[] = [];
  /** Two replicas on one backend. */
  const replicas = async (): Promise<[TaskEventBus, TaskEventBus]> => {
    const backend = await options.create();
    backends.push(backend);
    const a = await backend.connect();
    const b = await backend.connect();
    buses.push(a, b);
    return [a, b];
  };
  const key = (): TaskKey => ({ tenant: `contract-${randomUUID()}`, taskId: randomUUID() });
  const working = (taskId: string, n: number) => ({ event: status(taskId, 'TASK_STATE_WORKING', n), final: false, revision: n });
  const completed = (taskId: string, n: number) => ({ event: status(taskId, 'TASK_STATE_COMPLETED', n), final: true, revision: n });
  const numbers = (records: TaskEventRecord[]): unknown[] => records.map((r) => r.event.statusUpdate?.metadata?.n);
  /** Everything a subscription yields until it ends. */
  const drain = (subscription: TaskSubscription): Promise<TaskEventRecord[]> =>
    within(
      (async () => {
        const out: TaskEventRecord[] = [];
        for await (const record of subscription) out.push(record);
        return out;
      })(),
      timeout,
      'the subscription to end',
    );
  const subscribeOrFail = async (bus: TaskEventBus, k: TaskKey, afterId?: string, signal?: AbortSignal): Promise<TaskSubscription> => {
    const subscription = await bus.subscribe(k, { ...(afterId === undefined ? {} : { afterId }), ...(signal ? { signal } : {}) });
    assert.ok(subscription, 'subscribe resolved undefined for a valid id');
    return subscription;
  };

  t.describe(`TaskEventBus contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const bus of buses.splice(0)) await bus.close();
      for (const backend of backends.splice(0)) await backend.dispose?.();
    });

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

    t.it('routes a cancel request to the replica running the task, and says when none is', async () => {
      const [runner, other] = await replicas();
      const k = key();
      assert.equal(await other.requestCancel(k, {}), false);
      const received: TaskCancelRequest[] = [];
      const stop = runner.onCancel(k, (request) => received.push(request));
      // Registration may take a moment on a remote backend.
      await eventually(
        async () => (received.length > 0 ? true : await other.requestCancel(k, { metadata: { reason: 'user' } })),
        timeout,
        'a runner to be found',
      );
      await eventually(() => received.length > 0, timeout, 'the runner to get the request');
      assert.deepEqual(received[0], { metadata: { reason: 'user' } });
      // Another task's cancel does not reach it.
      assert.equal(await other.requestCancel(key(), {}), false);
      stop();
      await eventually(async () => !(await other.requestCancel(k, {})), timeout, 'the runner to be gone');
      // A runner whose bus closes is gone too.
      runner.onCancel(k, (request) => received.push(request));
      await eventually(async () => await other.requestCancel(k, {}), timeout, 'the runner to be back');
      await runner.close();
      await eventually(async () => !(await other.requestCancel(k, {})), timeout, 'the closed runner to be gone');
    });
  });
}
