import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Task, TaskState } from '@a2aplane/a2a-types';
import { RateLimitedError } from '@a2aplane/a2a-types';
import type { TaskRecord, TaskStore } from '../store/task-store.js';
import type { ContractTestApi } from './contract-api.js';

/** The limits an admission test asks its store for. */
export interface TaskAdmissionContractLimits {
  /** Most tasks kept (asked only when `capacity` is on; otherwise a large value). */
  maxTasks: number;
  maxTasksPerOwner: number;
  maxBytesPerOwner: number;
}

export interface TaskAdmissionContractOptions {
  /** A fresh store with these limits. Each test uses tenants of its own. */
  create(limits: TaskAdmissionContractLimits): TaskStore | Promise<TaskStore>;
  /** Releases a store made by `create`. */
  dispose?(store: TaskStore): void | Promise<void>;
  /** The store bounds its task count (`maxTasks`) as `InMemoryTaskStore` does. Default `true`. */
  capacity?: boolean;
}

type State = Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>;

/** The refusal a store's capacity or share gives: 429 (`RateLimitedError`) naming the limit. */
const refusedFor =
  (limit: string) =>
  (error: unknown): boolean => {
    assert.ok(RateLimitedError.isInstance(error), `expected a RateLimitedError, got ${String(error)}`);
    assert.equal((error as { limit?: unknown }).limit, limit);
    if (limit.endsWith('PerOwner')) assert.match((error as Error).message, /share of the store/);
    return true;
  };

/**
 * `TaskStore.admitTask` and per-caller fair shares (issue 31, decisions 0068 and 0069): a store
 * that admits refuses there exactly what its create would refuse, so a refused SendMessage starts
 * nothing; one caller's live tasks and bytes stop at its share while other callers go on.
 */
export function describeTaskAdmissionContract(name: string, options: TaskAdmissionContractOptions, t: ContractTestApi): void {
  const made: TaskStore[] = [];
  const open = async (limits: Partial<TaskAdmissionContractLimits>): Promise<TaskStore & Required<Pick<TaskStore, 'admitTask'>>> => {
    const store = await options.create({ maxTasks: 10_000, maxTasksPerOwner: 10_000, maxBytesPerOwner: 64 * 1024 * 1024, ...limits });
    made.push(store);
    assert.equal(typeof store.admitTask, 'function', 'the store implements admitTask');
    return store as TaskStore & Required<Pick<TaskStore, 'admitTask'>>;
  };
  const tenant = (): string => `admission-${randomUUID()}`;
  const task = (id: string, state: State, text = ''): Task => ({
    id,
    contextId: 'c',
    status: { state, timestamp: new Date().toISOString() },
    ...(text ? { artifacts: [{ artifactId: 'out', parts: [{ text }] }] } : {}),
  });
  const record = (ten: string, owner: string, value: Task): TaskRecord => ({ tenant: ten, owner, task: value, updatedAt: Date.now() });

  t.describe(`TaskStore admission and fair shares: ${name}`, () => {
    t.afterEach(async () => {
      for (const store of made.splice(0)) await options.dispose?.(store);
    });

    t.it("refuses a caller's task beyond its live-task share, with the share's reason; others go on; an ended task frees it", async () => {
      const store = await open({ maxTasksPerOwner: 2 });
      const ten = tenant();
      await store.admitTask({ tenant: ten, owner: 'a' });
      await store.upsert(record(ten, 'a', task('a1', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      await store.upsert(record(ten, 'a', task('a2', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 });
      await assert.rejects(store.admitTask({ tenant: ten, owner: 'a' }), refusedFor('maxTasksPerOwner'));
      // The create is refused as well (a caller that skips admitTask, or lost a race to it).
      await assert.rejects(
        store.upsert(record(ten, 'a', task('a3', 'TASK_STATE_WORKING')), { expectedRevision: 0 }),
        refusedFor('maxTasksPerOwner'),
      );
      assert.equal(await store.get({ tenant: ten, taskId: 'a3' }), undefined);
      // Another owner of the tenant, and the same owner name in another tenant, have shares of their own.
      await store.admitTask({ tenant: ten, owner: 'b' });
      await store.upsert(record(ten, 'b', task('b1', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      await store.admitTask({ tenant: tenant(), owner: 'a' });
      // Updates of live tasks within the share go on; a terminal task stops counting.
      await store.upsert(record(ten, 'a', task('a1', 'TASK_STATE_COMPLETED')), { expectedRevision: 1 });
      await store.admitTask({ tenant: ten, owner: 'a' });
      await store.upsert(record(ten, 'a', task('a3', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      // A deleted live task frees its place too.
      await assert.rejects(store.admitTask({ tenant: ten, owner: 'a' }), refusedFor('maxTasksPerOwner'));
      assert.equal(await store.delete({ tenant: ten, taskId: 'a2' }), true);
      await store.admitTask({ tenant: ten, owner: 'a' });
    });

    t.it('admitting holds nothing: many admissions of one caller take no part of its share', async () => {
      const store = await open({ maxTasksPerOwner: 1 });
      const ten = tenant();
      for (let i = 0; i < 5; i++) await store.admitTask({ tenant: ten, owner: 'a' });
      await store.upsert(record(ten, 'a', task('a1', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      await assert.rejects(store.admitTask({ tenant: ten, owner: 'a' }), refusedFor('maxTasksPerOwner'));
    });

    t.it("refuses a live task's growth beyond its caller's byte share; the task can still end, which frees it", async () => {
      const share = 40_000;
      const store = await open({ maxBytesPerOwner: share });
      const ten = tenant();
      let revision = await store.upsert(record(ten, 'a', task('big', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      let text = '';
      let refusal: unknown;
      // Grows by 2 000 characters a write until the share refuses (each store counts bytes its own way, all within 2x).
      for (let i = 0; i < 100 && refusal === undefined; i++) {
        const next = text + 'x'.repeat(2_000);
        try {
          revision = await store.upsert(record(ten, 'a', task('big', 'TASK_STATE_WORKING', next)), { expectedRevision: revision });
          text = next;
        } catch (error) {
          refusal = error;
        }
      }
      assert.ok(refusal !== undefined, 'the byte share refused a write');
      refusedFor('maxBytesPerOwner')(refusal);
      assert.ok(text.length >= share / 4, `the task grew to ${text.length} characters before the refusal`);
      assert.equal((await store.get({ tenant: ten, taskId: 'big' }))?.revision, revision);
      // Another caller is not affected.
      await store.upsert(record(ten, 'b', task('other', 'TASK_STATE_WORKING', text)), { expectedRevision: 0 });
      // The task ends with its content; its bytes leave the caller's share.
      await store.upsert(record(ten, 'a', task('big', 'TASK_STATE_COMPLETED', text)), { expectedRevision: revision });
      await store.admitTask({ tenant: ten, owner: 'a' });
      await store.upsert(record(ten, 'a', task('again', 'TASK_STATE_WORKING', text)), { expectedRevision: 0 });
    });

    if (options.capacity !== false) {
      t.it('refuses when only live tasks fill the store, and admits when a terminal task can make room', async () => {
        const store = await open({ maxTasks: 2 });
        const ten = tenant();
        await store.upsert(record(ten, 'a', task('l1', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
        await store.upsert(record(ten, 'b', task('l2', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
        await assert.rejects(store.admitTask({ tenant: ten, owner: 'c' }), refusedFor('maxTasks'));
        await store.upsert(record(ten, 'b', task('l2', 'TASK_STATE_COMPLETED')), { expectedRevision: 1 });
        await store.admitTask({ tenant: ten, owner: 'c' });
        await store.upsert(record(ten, 'c', task('l3', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
        assert.ok(await store.get({ tenant: ten, taskId: 'l1' }));
      });
    }
  });
}
