import { describe, expect, it } from 'vitest';
import * as core from '../src/core/index.js';
import { createEventQueue, createInMemoryTaskStore, EventQueue, InMemoryTaskStore, SlowConsumerError } from '../src/index.js';

describe('createInMemoryTaskStore (InMemoryTaskStore stays as a deprecated alias for one minor)', () => {
  it('makes the same store, with the same option checks', async () => {
    const store = createInMemoryTaskStore({ maxTasks: 1 });
    expect(store).toBeInstanceOf(InMemoryTaskStore);
    const record = {
      tenant: 't',
      owner: 'o',
      task: { id: 'a', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } },
      updatedAt: Date.now(),
    };
    expect(await store.upsert(record, { expectedRevision: 0 })).toBe(1);
    expect(() => createInMemoryTaskStore({ maxTasks: 0 })).toThrow(RangeError);
  });

  it('the framework-neutral core entry offers the factory too, and the same class', () => {
    expect(core.createInMemoryTaskStore()).toBeInstanceOf(core.InMemoryTaskStore);
    expect(core.InMemoryTaskStore).toBe(InMemoryTaskStore);
  });
});

describe('createEventQueue (EventQueue stays as a deprecated alias for one minor)', () => {
  it('makes the same bounded queue: items in order, then the end; onClose once', async () => {
    let closed = 0;
    const queue = createEventQueue<number>(4, () => {
      closed += 1;
    });
    expect(queue).toBeInstanceOf(EventQueue);
    queue.push(1);
    queue.push(2);
    queue.end();
    const seen: number[] = [];
    for await (const item of queue) seen.push(item);
    expect(seen).toEqual([1, 2]);
    expect(closed).toBe(1);
  });

  it('fails the stream with SlowConsumerError past its bound, as the class does', async () => {
    for (const queue of [createEventQueue<number>(1, () => undefined), new EventQueue<number>(1, () => undefined)]) {
      queue.push(1);
      queue.push(2);
      await expect(queue[Symbol.asyncIterator]().next()).rejects.toSatisfy((error) => SlowConsumerError.isInstance(error));
    }
    expect(core.createEventQueue).toBe(createEventQueue);
  });
});
