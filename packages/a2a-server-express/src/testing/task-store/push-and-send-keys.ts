import assert from 'node:assert/strict';
import type { ContractTestApi } from '../contract-api.js';
import type { StoreFixture } from './fixture.js';

/** The TaskStore contract, push configs per task and SendMessage keys. */
export function pushAndSendKeyContract(t: ContractTestApi, { open, tenant, task, record, otherSendKeys }: StoreFixture): void {
  t.it('keeps push configs per task: put, replace by id, list, delete', async () => {
    const store = await open();
    const ten = tenant();
    const key = { tenant: ten, taskId: 'a' };
    await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_WORKING')), { expectedRevision: 0 });
    await store.putPushConfig(key, { id: 'p1', taskId: 'a', url: 'https://example.com/one' });
    await store.putPushConfig(key, { id: 'p2', taskId: 'a', url: 'https://example.com/two', token: 'secret' });
    await store.putPushConfig(key, { id: 'p1', taskId: 'a', url: 'https://example.com/one-again' });
    const configs = (await store.listPushConfigs(key)).sort((x, y) => x.id.localeCompare(y.id));
    assert.deepEqual(configs, [
      { id: 'p1', taskId: 'a', url: 'https://example.com/one-again' },
      { id: 'p2', taskId: 'a', url: 'https://example.com/two', token: 'secret' },
    ]);
    assert.equal(await store.deletePushConfig(key, 'p1'), true);
    assert.equal(await store.deletePushConfig(key, 'p1'), false);
    assert.deepEqual(
      (await store.listPushConfigs(key)).map((c) => c.id),
      ['p2'],
    );
    // Another tenant's task of the same id has none; a task that is not stored gets none.
    assert.deepEqual(await store.listPushConfigs({ tenant: tenant(), taskId: 'a' }), []);
    await store.putPushConfig({ tenant: ten, taskId: 'missing' }, { id: 'p', taskId: 'missing', url: 'https://example.com/x' });
    assert.deepEqual(await store.listPushConfigs({ tenant: ten, taskId: 'missing' }), []);
    // A task write keeps its push configs.
    await store.upsert(record(ten, 'o', task('a', 'TASK_STATE_COMPLETED')), { expectedRevision: 1 });
    assert.equal((await store.listPushConfigs(key)).length, 1);
  });

  t.it('claims SendMessage keys once per (tenant, owner, messageId), and releases them only for their task', async () => {
    const store = await open();
    const ten = tenant();
    const key = { tenant: ten, owner: 'o', messageId: 'm1', fingerprint: 'f1' };
    assert.equal(await store.claimSendKey(key, 'task-1'), undefined);
    assert.equal(await store.claimSendKey(key, 'task-2'), 'task-1');
    for (const other of otherSendKeys(key, tenant())) assert.equal(await store.claimSendKey(other, 'task-3'), undefined);
    // Released by another task's send: nothing happens.
    await store.releaseSendKey(key, 'task-2');
    assert.equal(await store.claimSendKey(key, 'task-5'), 'task-1');
    await store.releaseSendKey(key, 'task-1');
    assert.equal(await store.claimSendKey(key, 'task-6'), undefined);
    assert.equal(await store.claimSendKey(key, 'task-7'), 'task-6');
    // Of concurrent claims, one wins and the others name its task.
    const race = { tenant: ten, owner: 'o', messageId: 'race', fingerprint: 'f1' };
    const claims = await Promise.all(['r1', 'r2', 'r3', 'r4'].map((id) => store.claimSendKey(race, id)));
    const winners = ['r1', 'r2', 'r3', 'r4'].filter((_, i) => claims[i] === undefined);
    assert.equal(winners.length, 1);
    for (const claim of claims) assert.ok(claim === undefined || claim === winners[0]);
  });
}
