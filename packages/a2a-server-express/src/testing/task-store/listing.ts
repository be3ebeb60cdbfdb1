import assert from 'node:assert/strict';
import type { State } from './fixture.js';
import type { ContractTestApi } from '../contract-api.js';
import type { StoreFixture } from './fixture.js';

/** The TaskStore contract, listTasks: tenant and owner, newest first, filters and page tokens. */
export function listingContract(t: ContractTestApi, { open, tenant, task, record }: StoreFixture): void {
  t.it('lists by tenant and owner, newest status first, with filters and stable page tokens', async () => {
    const store = await open();
    const ten = tenant();
    const other = tenant();
    for (let i = 0; i < 7; i++) {
      const state: State = i % 2 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
      await store.upsert(record(ten, 'a', task(`t${i}`, state, `2026-01-01T00:00:0${i}.000Z`, i < 3 ? 'x' : 'y')), {
        expectedRevision: 0,
      });
    }
    await store.upsert(record(ten, 'b', task('of-b', 'TASK_STATE_WORKING', '2026-01-01T00:00:09.000Z')), { expectedRevision: 0 });
    await store.upsert(record(other, 'a', task('other-tenant', 'TASK_STATE_WORKING', '2026-01-01T00:00:09.000Z')), {
      expectedRevision: 0,
    });
    const first = await store.list({ tenant: ten, owner: 'a', pageSize: 3 });
    assert.deepEqual(
      first?.records.map((r) => r.task.id),
      ['t6', 't5', 't4'],
    );
    assert.equal(first?.totalSize, 7);
    assert.equal(first?.records[0]?.revision, 1);
    assert.notEqual(first?.nextPageToken, '');
    // A write between pages does not move the cursor.
    await store.upsert(record(ten, 'a', task('t0', 'TASK_STATE_WORKING', '2026-01-01T00:00:00.000Z', 'x')), { expectedRevision: 1 });
    const second = await store.list({ tenant: ten, owner: 'a', pageSize: 3, pageToken: first?.nextPageToken as string });
    assert.deepEqual(
      second?.records.map((r) => r.task.id),
      ['t3', 't2', 't1'],
    );
    const third = await store.list({ tenant: ten, owner: 'a', pageSize: 3, pageToken: second?.nextPageToken as string });
    assert.deepEqual(
      third?.records.map((r) => r.task.id),
      ['t0'],
    );
    assert.equal(third?.nextPageToken, '');
    assert.equal((await store.list({ tenant: ten, owner: 'a', pageSize: 10, contextId: 'x' }))?.totalSize, 3);
    assert.equal((await store.list({ tenant: ten, owner: 'a', pageSize: 10, status: 'TASK_STATE_COMPLETED' }))?.totalSize, 3);
    const after = await store.list({
      tenant: ten,
      owner: 'a',
      pageSize: 10,
      statusTimestampAfter: Date.parse('2026-01-01T00:00:04.000Z'),
    });
    assert.deepEqual(
      after?.records.map((r) => r.task.id),
      ['t6', 't5'],
    );
    assert.deepEqual(
      (await store.list({ tenant: ten, owner: 'b', pageSize: 10 }))?.records.map((r) => r.task.id),
      ['of-b'],
    );
    assert.equal(await store.list({ tenant: ten, owner: 'a', pageSize: 10, pageToken: '!!not a token' }), undefined);
    const empty = await store.list({ tenant: tenant(), owner: 'a', pageSize: 10 });
    assert.deepEqual(empty, { records: [], nextPageToken: '', totalSize: 0 });
  });
}
