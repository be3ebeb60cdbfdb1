import assert from 'node:assert/strict';
import { type ContractTestApi, sleep } from '../contract-api.js';
import type { StoreFixture } from './fixture.js';

/** The TaskStore contract, lifetime: TTL of terminal tasks and, when the store bounds its count, capacity. */
export function lifetimeContract(t: ContractTestApi, { options, open, tenant, task, record, isConflict }: StoreFixture): void {
  t.it(
    'expires a terminal task terminalTtlMs after its last change, never a live one',
    async () => {
      const store = await open({ terminalTtlMs: 300 });
      const ten = tenant();
      await store.upsert(record(ten, 'o', task('done', 'TASK_STATE_COMPLETED')), { expectedRevision: 0 });
      await store.upsert(record(ten, 'o', task('live', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      assert.ok(await store.get({ tenant: ten, taskId: 'done' }));
      await sleep(1_200);
      assert.equal(await store.get({ tenant: ten, taskId: 'done' }), undefined);
      assert.equal((await store.list({ tenant: ten, owner: 'o', pageSize: 10 }))?.totalSize, 1);
      assert.equal((await store.get({ tenant: ten, taskId: 'live' }))?.task.status.state, 'TASK_STATE_WORKING');
      // An expired task is gone: it can be created again.
      assert.equal(await store.upsert(record(ten, 'o', task('done', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 }), 1);
    },
    10_000,
  );

  if (options.capacity !== false) {
    t.it('at capacity evicts terminal tasks first, and refuses a new task rather than evict a live one', async () => {
      const store = await open({ maxTasks: 2 });
      const ten = tenant();
      await store.upsert(record(ten, 'o', task('live', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
      await store.upsert(record(ten, 'o', task('done', 'TASK_STATE_COMPLETED')), { expectedRevision: 0 });
      await store.upsert(record(ten, 'o', task('new', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 });
      assert.equal(await store.get({ tenant: ten, taskId: 'done' }), undefined);
      await assert.rejects(
        store.upsert(record(ten, 'o', task('refused', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 }),
        (error) => !isConflict(error),
      );
      assert.equal(await store.get({ tenant: ten, taskId: 'refused' }), undefined);
      assert.ok(await store.get({ tenant: ten, taskId: 'live' }));
      assert.ok(await store.get({ tenant: ten, taskId: 'new' }));
      // Updating a stored live task still works at capacity.
      assert.equal(await store.upsert(record(ten, 'o', task('live', 'TASK_STATE_COMPLETED')), { expectedRevision: 1 }), 2);
    });
  }
}
