import type { Task } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type AgentExecutor, InMemoryTaskStore, TaskStoreFullError } from '../src/index.js';
import { createGate, rpc, startServer, userMessage } from './helpers.js';

const live = (id: string, text = ''): Task => ({
  id,
  contextId: 'c',
  status: { state: 'TASK_STATE_WORKING' },
  ...(text ? { metadata: { text } } : {}),
});
const record = (owner: string, task: Task) => ({ tenant: '', owner, task, updatedAt: Date.now() });

describe('fair shares of the task store per caller (issue 31 item 5)', () => {
  it('by default one caller holds at most half the live tasks; the others are still served', async () => {
    const store = new InMemoryTaskStore({ maxTasks: 10 });
    for (let i = 0; i < 5; i++) await store.upsert(record('greedy', live(`g${i}`)), { expectedRevision: 0 });
    const refused = await store.upsert(record('greedy', live('g5')), { expectedRevision: 0 }).catch((error: unknown) => error);
    expect(TaskStoreFullError.isInstance(refused) || refused instanceof TaskStoreFullError).toBe(true);
    expect(refused).toMatchObject({ limit: 'maxTasksPerOwner', reason: 'RATE_LIMITED', metadata: { limit: 'maxTasksPerOwner' } });
    await expect(store.admitTask({ tenant: '', owner: 'greedy' })).rejects.toMatchObject({ limit: 'maxTasksPerOwner' });
    // Another caller (and the same owner name in another tenant) still gets in.
    await expect(store.admitTask({ tenant: '', owner: 'polite' })).resolves.toBeUndefined();
    await store.upsert(record('polite', live('p0')), { expectedRevision: 0 });
    await store.upsert({ ...record('greedy', live('g0')), tenant: 'other' }, { expectedRevision: 0 });
    // A task that ends frees its share; it can always end, even at the cap.
    const ended = { ...live('g0'), status: { state: 'TASK_STATE_COMPLETED' as const } };
    await store.upsert(record('greedy', ended), { expectedRevision: 1 });
    await store.upsert(record('greedy', live('g5')), { expectedRevision: 0 });
  });

  it('bytes per caller: its live tasks may hold maxBytesPerOwner together, a growing task is refused past it', async () => {
    const store = new InMemoryTaskStore({ maxBytesPerOwner: 20_000 });
    await store.upsert(record('a', live('a0', 'x'.repeat(4_000))), { expectedRevision: 0 });
    const grown = await store.upsert(record('a', live('a0', 'x'.repeat(12_000))), { expectedRevision: 1 }).catch((e: unknown) => e);
    expect(grown).toMatchObject({ limit: 'maxBytesPerOwner' });
    await store.upsert(record('b', live('b0', 'x'.repeat(8_000))), { expectedRevision: 0 });
  });

  it('rejects bad share options with RangeError', () => {
    expect(() => new InMemoryTaskStore({ maxTasksPerOwner: 0 })).toThrow(RangeError);
    expect(() => new InMemoryTaskStore({ maxBytesPerOwner: Number.NaN })).toThrow(RangeError);
  });

  it('through the server: a caller at its share is refused with limit maxTasksPerOwner, another caller is served', async () => {
    const gate = createGate();
    const executor: AgentExecutor = {
      async execute(context, events) {
        events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
        await gate.wait;
        events.publish({ taskId: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      },
    };
    const server = await startServer({
      store: new InMemoryTaskStore({ maxTasks: 4 }),
      executor,
      authenticate: async (request) => ({ id: request.headers['x-user'] ?? 'nobody', scheme: 'test' }),
    });
    const send = (user: string, text: string) =>
      rpc(server.url, 'SendMessage', { message: userMessage(text), configuration: { returnImmediately: true } }, { 'X-User': user });
    try {
      for (let i = 0; i < 2; i++) expect((await send('greedy', `g${i}`)).body.result).toBeDefined();
      const refused = await send('greedy', 'one too many');
      expect(JSON.stringify(refused.body.error)).toContain('maxTasksPerOwner');
      expect((await send('polite', 'p0')).body.result).toBeDefined();
    } finally {
      gate.open();
      await server.close();
    }
  });
});
