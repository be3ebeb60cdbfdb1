import { describe, expect, it } from 'vitest';
import { createInMemoryTaskStore, InMemoryTaskStore } from '../src/index.js';

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
});
