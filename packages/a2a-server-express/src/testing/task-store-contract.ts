import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Task, TaskState } from '@a2aplane/a2a-types';
import { type SendKey, type TaskRecord, TaskRevisionConflictError, type TaskStore } from '../store/task-store.js';
import { type ContractTestApi, sleep } from './contract-api.js';

/** The limits a contract test asks its store for. */
export interface TaskStoreContractLimits {
  /** How long a terminal task is kept after its last change. */
  terminalTtlMs: number;
  /** Most tasks kept (only asked with a small value when `capacity` is on). */
  maxTasks: number;
}

export interface TaskStoreContractOptions {
  /** A fresh, empty store with these limits. Each test makes its own and uses tenants of its own. */
  create(limits: TaskStoreContractLimits): TaskStore | Promise<TaskStore>;
  /** Releases a store made by `create` (connections, keys). */
  dispose?(store: TaskStore): void | Promise<void>;
  /** The store bounds its task count as `InMemoryTaskStore` does (evicts terminal tasks, refuses new ones over live ones). Default `true`. */
  capacity?: boolean;
}

type State = Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>;

const LARGE: TaskStoreContractLimits = { terminalTtlMs: 10 * 60_000, maxTasks: 10_000 };

/**
 * The `TaskStore` contract: compare-and-set revisions, copies, tenant and owner isolation, TTL of
 * terminal tasks, capacity, ListTasks pagination, push configs and SendMessage keys. Every
 * implementation runs it (`InMemoryTaskStore` in this package, the Redis store in `@a2aplane/a2a-redis`).
 */
/** Keys that differ from `key` in one part each: owner, tenant, message (its fingerprint, decision 0105). */
const otherSendKeys = (key: SendKey, otherTenant: string): SendKey[] => [
  { ...key, owner: 'other' },
  { ...key, tenant: otherTenant },
  { ...key, fingerprint: 'other' },
];

export function describeTaskStoreContract(name: string, options: TaskStoreContractOptions, t: ContractTestApi): void {
  const made: TaskStore[] = [];
  const open = async (limits: Partial<TaskStoreContractLimits> = {}): Promise<TaskStore> => {
    const store = await options.create({ ...LARGE, ...limits });
    made.push(store);
    return store;
  };
  // Tenants of their own per test: a shared backend never mixes runs.
  const tenant = (): string => `contract-${randomUUID()}`;
  const task = (id: string, state: State, timestamp = new Date().toISOString(), contextId = 'c'): Task => ({
    id,
    contextId,
    status: { state, timestamp },
  });
  const record = (tenantId: string, owner: string, value: Task, updatedAt = Date.now()): TaskRecord => ({
    tenant: tenantId,
    owner,
    task: value,
    updatedAt,
  });
  const isConflict = (error: unknown): boolean => TaskRevisionConflictError.isInstance(error);

  t.describe(`TaskStore contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const store of made.splice(0)) await options.dispose?.(store);
    });

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
  });
}
