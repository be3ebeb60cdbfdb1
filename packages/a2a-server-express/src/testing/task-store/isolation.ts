import assert from 'node:assert/strict';
import type { Task } from '@a2aplane/a2a-types';
import type { ContractTestApi } from '../contract-api.js';
import type { StoreFixture } from './fixture.js';

/** The TaskStore contract, copies and isolation: what a caller reads or writes is its own; tenants stay apart; delete forgets. */
export function isolationContract(t: ContractTestApi, { open, tenant, task, record }: StoreFixture): void {
  t.it('hands out copies: changing a read or written value changes nothing stored', async () => {
    const store = await open();
    const ten = tenant();
    const key = { tenant: ten, taskId: 'a' };
    const written = record(ten, 'o', {
      ...task('a', 'TASK_STATE_WORKING'),
      history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
    });
    await store.upsert(written, { expectedRevision: 0 });
    written.task.status.state = 'TASK_STATE_FAILED';
    const read = await store.get(key);
    assert.equal(read?.task.status.state, 'TASK_STATE_WORKING');
    (read as { task: Task }).task.history?.push({ messageId: 'x', role: 'ROLE_AGENT', parts: [] });
    assert.equal((await store.get(key))?.task.history?.length, 1);
  });

  t.it('keeps tenants apart, and forgets a deleted task (which may then be created again)', async () => {
    const store = await open();
    const one = tenant();
    const two = tenant();
    await store.upsert(record(one, 'o', task('same', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
    await store.upsert(record(two, 'o', task('same', 'TASK_STATE_COMPLETED')), { expectedRevision: 0 });
    assert.equal((await store.get({ tenant: one, taskId: 'same' }))?.task.status.state, 'TASK_STATE_WORKING');
    assert.equal((await store.get({ tenant: two, taskId: 'same' }))?.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(await store.delete({ tenant: one, taskId: 'same' }), true);
    assert.equal(await store.delete({ tenant: one, taskId: 'same' }), false);
    assert.equal(await store.get({ tenant: one, taskId: 'same' }), undefined);
    assert.equal((await store.get({ tenant: two, taskId: 'same' }))?.revision, 1);
    assert.equal(await store.upsert(record(one, 'o', task('same', 'TASK_STATE_SUBMITTED')), { expectedRevision: 0 }), 1);
  });
}
