import type { Task, TaskState } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { InMemoryTaskStore, TaskRevisionConflictError } from '../src/index.js';
import { putTask } from './fixtures/put-task.js';

const task = (id: string, state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, timestamp: string, contextId = 'c'): Task => ({
  id,
  contextId,
  status: { state, timestamp },
});

describe('InMemoryTaskStore', () => {
  it('expires terminal tasks after the TTL, keeps live ones', async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ terminalTtlMs: 1000, now: () => now });
    await putTask(store, { tenant: '', owner: 'a', task: task('done', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:00Z'), updatedAt: 0 });
    await putTask(store, { tenant: '', owner: 'a', task: task('live', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z'), updatedAt: 0 });
    now = 2000;
    expect(await store.get({ tenant: '', taskId: 'done' })).toBeUndefined();
    expect(await store.get({ tenant: '', taskId: 'live' })).toBeDefined();
  });

  it('evicts the oldest terminal task first when full', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 2, maxTasksPerOwner: Number.POSITIVE_INFINITY });
    await putTask(store, { tenant: '', owner: 'a', task: task('working', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z'), updatedAt: 1 });
    await putTask(store, { tenant: '', owner: 'a', task: task('done', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:00Z'), updatedAt: 2 });
    await putTask(store, { tenant: '', owner: 'a', task: task('new', 'TASK_STATE_SUBMITTED', '2026-01-01T00:00:00Z'), updatedAt: 3 });
    expect(await store.get({ tenant: '', taskId: 'done' })).toBeUndefined();
    expect(await store.get({ tenant: '', taskId: 'working' })).toBeDefined();
    expect(await store.get({ tenant: '', taskId: 'new' })).toBeDefined();
  });

  it('ages a task from the moment it ended, and refuses a new task rather than evict a live one', async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ terminalTtlMs: 1000, maxTasks: 3, maxTasksPerOwner: Number.POSITIVE_INFINITY, now: () => now });
    const put = (id: string, state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, at: number) =>
      putTask(store, { tenant: '', owner: 'a', task: task(id, state, '2026-01-01T00:00:00Z'), updatedAt: at });
    await put('a', 'TASK_STATE_WORKING', 0);
    await put('b', 'TASK_STATE_WORKING', 0);
    now = 900;
    await put('a', 'TASK_STATE_COMPLETED', 900); // ends late: its TTL runs from 900
    now = 1500;
    await put('c', 'TASK_STATE_WORKING', 1500);
    expect(await store.get({ tenant: '', taskId: 'a' })).toBeDefined();
    await put('d', 'TASK_STATE_WORKING', 1500); // full: the only terminal task goes first
    expect(await store.get({ tenant: '', taskId: 'a' })).toBeUndefined();
    // Full with nothing terminal: a live task is never evicted, the new one is refused.
    await expect(put('e', 'TASK_STATE_WORKING', 1500)).rejects.toMatchObject({
      name: 'TaskStoreFullError',
      limit: 'maxTasks',
      httpStatus: 429,
    });
    expect(await store.get({ tenant: '', taskId: 'b' })).toBeDefined();
    expect((await store.list({ tenant: '', owner: 'a', pageSize: 10 }))?.records.map((r) => r.task.id).sort()).toEqual(['b', 'c', 'd']);
  });

  it('forgets a deleted task everywhere and stays bounded under many inserts', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 100, now: () => 5000 });
    await putTask(store, { tenant: '', owner: 'a', task: task('gone', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:00Z'), updatedAt: 0 });
    expect(await store.delete({ tenant: '', taskId: 'gone' })).toBe(true);
    expect(await store.delete({ tenant: '', taskId: 'gone' })).toBe(false);
    for (let i = 0; i < 5000; i++) {
      await putTask(store, { tenant: '', owner: 'a', task: task(`t${i}`, 'TASK_STATE_COMPLETED', '2026-01-01T00:00:00Z'), updatedAt: i });
    }
    const page = await store.list({ tenant: '', owner: 'a', pageSize: 100 });
    expect(page?.totalSize).toBe(100);
    expect(await store.get({ tenant: '', taskId: 't4999' })).toBeDefined();
    expect(await store.get({ tenant: '', taskId: 't4899' })).toBeUndefined();
  });

  it('lists by owner and tenant, newest status first, with filters and stable cursors', async () => {
    const store = new InMemoryTaskStore({ now: () => 10 });
    for (let i = 0; i < 7; i++) {
      await putTask(store, {
        tenant: 't',
        owner: 'a',
        task: task(`t${i}`, i % 2 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING', `2026-01-01T00:00:0${i}Z`, i < 3 ? 'x' : 'y'),
        updatedAt: i,
      });
    }
    await putTask(store, { tenant: 't', owner: 'b', task: task('other', 'TASK_STATE_WORKING', '2026-01-01T00:00:09Z'), updatedAt: 9 });
    await putTask(store, { tenant: 'u', owner: 'a', task: task('tenant-u', 'TASK_STATE_WORKING', '2026-01-01T00:00:09Z'), updatedAt: 9 });
    const first = await store.list({ tenant: 't', owner: 'a', pageSize: 3 });
    expect(first?.records.map((r) => r.task.id)).toEqual(['t6', 't5', 't4']);
    expect(first?.totalSize).toBe(7);
    const second = await store.list({ tenant: 't', owner: 'a', pageSize: 3, pageToken: first?.nextPageToken as string });
    expect(second?.records.map((r) => r.task.id)).toEqual(['t3', 't2', 't1']);
    const third = await store.list({ tenant: 't', owner: 'a', pageSize: 3, pageToken: second?.nextPageToken as string });
    expect(third?.records.map((r) => r.task.id)).toEqual(['t0']);
    expect(third?.nextPageToken).toBe('');
    expect((await store.list({ tenant: 't', owner: 'a', pageSize: 10, contextId: 'x' }))?.totalSize).toBe(3);
    expect((await store.list({ tenant: 't', owner: 'a', pageSize: 10, status: 'TASK_STATE_COMPLETED' }))?.totalSize).toBe(3);
    expect(
      (await store.list({ tenant: 't', owner: 'a', pageSize: 10, statusTimestampAfter: Date.parse('2026-01-01T00:00:04Z') }))?.totalSize,
    ).toBe(2);
    expect(await store.list({ tenant: 't', owner: 'a', pageSize: 10, pageToken: '!!' })).toBeUndefined();
  });

  it('writes by compare-and-set on the revision, and hands out copies', async () => {
    const store = new InMemoryTaskStore();
    const key = { tenant: '', taskId: 'a' };
    const record = { tenant: '', owner: 'o', task: task('a', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z'), updatedAt: Date.now() };
    expect(await store.upsert(record, { expectedRevision: 0 })).toBe(1);
    await expect(store.upsert(record, { expectedRevision: 0 })).rejects.toSatisfy(
      (error) => TaskRevisionConflictError.isInstance(error) && error.expectedRevision === 0 && error.actualRevision === 1,
    );
    expect(
      await store.upsert({ ...record, task: task('a', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:01Z') }, { expectedRevision: 1 }),
    ).toBe(2);
    // A writer that read revision 1 lost: nothing it wrote is stored.
    await expect(store.upsert(record, { expectedRevision: 1 })).rejects.toThrow(TaskRevisionConflictError);
    const stored = await store.get(key);
    expect(stored?.revision).toBe(2);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    (stored as { task: Task }).task.status.state = 'TASK_STATE_FAILED';
    expect((await store.get(key))?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('gives back each record exactly as written, with its revision last, whatever JSON would make of it', async () => {
    const store = new InMemoryTaskStore();
    const plain = { tenant: '', owner: 'o', task: task('plain', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z'), updatedAt: 5 };
    // Not JSON-exact (an undefined member, a Date, -0): still handed back as written.
    const odd = {
      tenant: '',
      owner: 'o',
      task: { ...task('odd', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z'), metadata: { absent: undefined, when: new Date(0), zero: -0 } },
      updatedAt: 5,
    };
    // A record read back and written again carries its revision: it keeps its place among the keys.
    const reread = { revision: 1, ...plain, task: task('reread', 'TASK_STATE_WORKING', '2026-01-01T00:00:00Z') };
    for (const record of [plain, odd, reread]) await store.upsert(record, { expectedRevision: 0 });
    const plainStored = await store.get({ tenant: '', taskId: 'plain' });
    expect(plainStored).toStrictEqual({ ...plain, revision: 1 });
    expect(Object.keys(plainStored ?? {})).toEqual(['tenant', 'owner', 'task', 'updatedAt', 'revision']);
    const oddStored = await store.get({ tenant: '', taskId: 'odd' });
    expect(oddStored).toStrictEqual({ ...odd, revision: 1 });
    expect(Object.is(oddStored?.task.metadata?.zero, -0)).toBe(true);
    expect(Object.keys((await store.get({ tenant: '', taskId: 'reread' })) ?? {})).toEqual([
      'revision',
      'tenant',
      'owner',
      'task',
      'updatedAt',
    ]);
    // Each read and each listed record is the caller's own.
    expect(await store.get({ tenant: '', taskId: 'plain' })).not.toBe(plainStored);
    const listed = await store.list({ tenant: '', owner: 'o', pageSize: 10 });
    expect(listed?.records.map((r) => r.task.id).sort()).toEqual(['odd', 'plain', 'reread']);
    expect(listed?.records.find((r) => r.task.id === 'odd')).toStrictEqual({ ...odd, revision: 1 });
  });
});
