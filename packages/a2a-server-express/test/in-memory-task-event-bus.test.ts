import type { StreamResponse } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { createInMemoryTaskEventBackend, createInMemoryTaskEventBus, type TaskEventRecord } from '../src/index.js';

const working = (n: number, pad = ''): { event: StreamResponse; final: boolean; revision: number } => ({
  event: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n, pad } } },
  final: false,
  revision: n,
});
const numbers = (records: TaskEventRecord[]) => records.map((r) => r.event.statusUpdate?.metadata?.n);

describe('in-memory TaskEventBus', () => {
  it('keeps the newest maxEventsPerTask events and reports the gap to a resume from before them', async () => {
    const bus = createInMemoryTaskEventBus({ backend: createInMemoryTaskEventBackend({ maxEventsPerTask: 3 }) });
    const key = { tenant: '', taskId: 't' };
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push(await bus.publish(key, working(n)));
    const all = await bus.read(key);
    expect(numbers(all?.events ?? [])).toEqual([3, 4, 5]);
    expect((await bus.read(key, ids[2]))?.gap).toBe(false);
    const behind = await bus.read(key, ids[0]);
    expect(behind?.gap).toBe(true);
    expect(behind?.lastId).toBe(ids[4]);
    expect((await bus.subscribe(key, { afterId: ids[0] }))?.gap).toBe(true);
  });

  it('trims a log to maxTaskBytes, oldest events first, and never reuses an id after dropping a log', async () => {
    const backend = createInMemoryTaskEventBackend({ maxTaskBytes: 8_000, maxTasks: 1 });
    const bus = createInMemoryTaskEventBus({ backend });
    const key = { tenant: '', taskId: 't' };
    for (let n = 1; n <= 5; n++) await bus.publish(key, working(n, 'p'.repeat(1_500)));
    expect(backend.stats().bytes).toBeLessThanOrEqual(8_000);
    expect(numbers((await bus.read(key))?.events ?? [])).toEqual([4, 5]);
    const last = (await bus.read(key))?.lastId as string;
    // A second task's log pushes the first one out (maxTasks 1); its next id is still later.
    await bus.publish({ tenant: '', taskId: 'other' }, working(1));
    expect(backend.stats().tasks).toBe(1);
    const dropped = await bus.read(key, last);
    expect(dropped).toEqual({ events: [], lastId: undefined, gap: true });
    const next = await bus.publish(key, working(6));
    expect(Number(next)).toBeGreaterThan(Number(last));
  });

  it('a dropped log costs a resume its replay, never a live subscriber its events', async () => {
    const backend = createInMemoryTaskEventBackend({ maxTasks: 1 });
    const bus = createInMemoryTaskEventBus({ backend });
    const key = { tenant: '', taskId: 't' };
    await bus.publish(key, working(1));
    const subscription = await bus.subscribe(key);
    if (!subscription) throw new Error('expected a subscription');
    await bus.publish({ tenant: '', taskId: 'other' }, working(1));
    await bus.publish(key, working(2));
    await bus.publish(key, { ...working(3), final: true });
    const got: TaskEventRecord[] = [];
    for await (const record of subscription) got.push(record);
    expect(numbers(got)).toEqual([2, 3]);
    expect(backend.stats().subscribers).toBe(0);
  });

  it('replays every event as it was published, a copy of its own for each reader, undefined members and dates too', async () => {
    const bus = createInMemoryTaskEventBus();
    const key = { tenant: '', taskId: 't' };
    const plain = working(1);
    // An undefined member and a Date (which JSON would drop or turn into text): replayed as published.
    const odd = {
      ...working(2),
      event: { statusUpdate: { ...plain.event.statusUpdate, metadata: { absent: undefined, when: new Date(0) } } },
    } as never;
    const first = await bus.publish(key, plain);
    await bus.publish(key, odd);
    plain.event.statusUpdate!.metadata!.n = 99;
    const one = (await bus.read(key))?.events ?? [];
    const two = (await bus.read(key))?.events ?? [];
    expect(numbers(one)).toEqual([1, undefined]);
    expect(one).toStrictEqual(two);
    expect(one[0]).toEqual({ id: first, event: working(1).event, final: false, revision: 1 });
    const metadata = one[1]?.event.statusUpdate?.metadata as Record<string, unknown>;
    expect(Object.hasOwn(metadata, 'absent')).toBe(true);
    expect(metadata.when).toEqual(new Date(0));
    expect(one[0]?.event).not.toBe(two[0]?.event);
    expect(metadata).not.toBe(two[1]?.event.statusUpdate?.metadata);
    const replay = await bus.subscribe(key, { afterId: '0' });
    const replayed: TaskEventRecord[] = [];
    setTimeout(() => replay?.close(), 20);
    for await (const record of replay ?? []) replayed.push(record);
    expect(replayed).toStrictEqual(one);
  });

  it('drops the log of an ended task retentionMs after its final event, and keeps a live one', async () => {
    let now = 0;
    const backend = createInMemoryTaskEventBackend({ retentionMs: 1_000, now: () => now });
    const bus = createInMemoryTaskEventBus({ backend });
    await bus.publish({ tenant: '', taskId: 'ended' }, { ...working(1), final: true });
    await bus.publish({ tenant: '', taskId: 'live' }, working(1));
    now = 2_000;
    expect((await bus.read({ tenant: '', taskId: 'ended' }))?.events).toEqual([]);
    expect((await bus.read({ tenant: '', taskId: 'live' }))?.events).toHaveLength(1);
    expect(backend.stats().tasks).toBe(1);
  });

  it('keeps its queue of ended logs bounded by the logs it holds, under a steady stream of tasks at the cap', async () => {
    // The queue is private: read its length, as nothing else shows what it retains.
    const queueOf = (backend: object) => (backend as unknown as { ended: { pending: number; keys: unknown[] } }).ended;
    const pendingEnded = (backend: object): number => queueOf(backend).pending;
    const backend = createInMemoryTaskEventBackend({ maxTasks: 10 });
    const bus = createInMemoryTaskEventBus({ backend });
    for (let n = 1; n <= 5_000; n++) await bus.publish({ tenant: '', taskId: `t-${n}` }, { ...working(n), final: true });
    expect(backend.stats().tasks).toBe(10);
    expect(pendingEnded(backend)).toBeLessThanOrEqual(11);
    expect(queueOf(backend).keys.length).toBeLessThan(2_100);
    // One log ending again and again behind an older ended one (never walked past): one item each.
    const steady = createInMemoryTaskEventBackend();
    const again = createInMemoryTaskEventBus({ backend: steady });
    await again.publish({ tenant: '', taskId: 'first' }, { ...working(0), final: true });
    for (let n = 1; n <= 5_000; n++) await again.publish({ tenant: '', taskId: 'loop' }, { ...working(n), final: n % 2 === 0 });
    expect(pendingEnded(steady)).toBeLessThan(1_100);
  });

  it('fails a subscriber that falls subscriberBufferSize events behind with SlowConsumerError', async () => {
    const bus = createInMemoryTaskEventBus({ subscriberBufferSize: 2 });
    const key = { tenant: '', taskId: 't' };
    const subscription = await bus.subscribe(key);
    if (!subscription) throw new Error('expected a subscription');
    for (let n = 1; n <= 3; n++) await bus.publish(key, working(n));
    const iterator = subscription[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'SlowConsumerError' });
  });

  it('refuses a backend it did not make', () => {
    expect(() => createInMemoryTaskEventBus({ backend: { stats: () => ({ tasks: 0, bytes: 0, subscribers: 0 }) } })).toThrow(TypeError);
  });
});
