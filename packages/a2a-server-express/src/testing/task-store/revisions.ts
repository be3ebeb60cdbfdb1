import assert from 'node:assert/strict';
import type { State } from './fixture.js';
import type { TaskRevisionConflictError } from '../../store/task-store.js';
import type { ContractTestApi } from '../contract-api.js';
import type { StoreFixture } from './fixture.js';

/** The TaskStore contract, revisions: compare-and-set writes, conflicts and concurrent writers. */
export function revisionContract(t: ContractTestApi, { open, tenant, task, record, isConflict }: StoreFixture): void {
  t.it('creates with expectedRevision 0 and counts revisions up by one per write', async () => {
    const store = await open();
    const ten = tenant();
    const key = { tenant: ten, taskId: 'a' };
    assert.equal(await store.get(key), undefined);
    assert.equal(await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 }), 1);
    const first = await store.get(key);
    assert.equal(first?.revision, 1);
    assert.equal(first?.owner, 'o');
    assert.equal(first?.tenant, ten);
    assert.equal(first?.task.status.state, 'TASK_STATE_SUBMITTED');
    assert.equal(await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_WORKING')), { expectedRevision: 1 }), 2);
    assert.equal(await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_COMPLETED')), { expectedRevision: 2 }), 3);
    const last = await store.get(key);
    assert.equal(last?.revision, 3);
    assert.equal(last?.task.status.state, 'TASK_STATE_COMPLETED');
  });

  t.it('refuses a write whose expectedRevision is stale with TaskRevisionConflictError, changing nothing', async () => {
    const store = await open();
    const ten = tenant();
    const key = { tenant: ten, taskId: 'a' };
    await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
    // A second create of the same task.
    await assert.rejects(store.upsert(record(ten, 'o', task('a', 'TASK_STATE_FAILED')), { expectedRevision: 0 }), isConflict);
    await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_INPUT_REQUIRED')), { expectedRevision: 1 });
    // A writer that read revision 1 lost the race.
    await assert.rejects(store.upsert(record(ten, 'o', task('a', 'TASK_STATE_CANCELED')), { expectedRevision: 1 }), (error) => {
      assert.ok(isConflict(error));
      const conflict = error as TaskRevisionConflictError;
      assert.equal(conflict.expectedRevision, 1);
      assert.equal(conflict.taskId, 'a');
      assert.equal(conflict.tenant, ten);
      assert.ok(conflict.actualRevision === undefined || conflict.actualRevision === 2);
      return true;
    });
    // A revision from the future is no better.
    await assert.rejects(store.upsert(record(ten, 'o', task('a', 'TASK_STATE_CANCELED')), { expectedRevision: 7 }), isConflict);
    // An update of a task that does not exist.
    await assert.rejects(store.upsert(record(ten, 'o', task('b', 'TASK_STATE_WORKING')), { expectedRevision: 1 }), isConflict);
    assert.equal(await store.get({ tenant: ten, taskId: 'b' }), undefined);
    const stored = await store.get(key);
    assert.equal(stored?.revision, 2);
    assert.equal(stored?.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  });

  t.it('lets exactly one of many concurrent writers of one revision win', async () => {
    const store = await open();
    const ten = tenant();
    await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_INPUT_REQUIRED')), { expectedRevision: 0 });
    const states: State[] = [
      'TASK_STATE_WORKING',
      'TASK_STATE_CANCELED',
      'TASK_STATE_FAILED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_REJECTED',
    ];
    const results = await Promise.allSettled(
      states.map((state) => store.upsert(record(ten, 'o', task('a', state)), { expectedRevision: 1 })),
    );
    const won = results.flatMap((result, i) => (result.status === 'fulfilled' ? [states[i]] : []));
    assert.equal(won.length, 1);
    for (const result of results) if (result.status === 'rejected') assert.ok(isConflict(result.reason));
    const stored = await store.get({ tenant: ten, taskId: 'a' });
    assert.equal(stored?.revision, 2);
    assert.equal(stored?.task.status.state, won[0]);
    // And of concurrent creates, one.
    const creates = await Promise.allSettled(
      [0, 1, 2, 3].map(() => store.upsert(record(ten, 'o', task('new', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 })),
    );
    assert.equal(creates.filter((result) => result.status === 'fulfilled').length, 1);
  });
}
