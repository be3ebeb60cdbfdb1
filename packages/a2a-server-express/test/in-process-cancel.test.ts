import type { StreamResponse } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type AgentExecutor, createA2AServer, createTaskUpdater } from '../src/index.js';
import { testCard } from './helpers.js';

/** Works until its signal aborts; counts `cancel` calls. */
function heldExecutor() {
  const counts = { cancel: 0 };
  const executor: AgentExecutor = {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('working');
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    },
    async cancel() {
      counts.cancel++;
    },
  };
  return { executor, counts };
}

const request = () => ({ message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'go' }] } });

async function untilWorking(events: AsyncIterable<StreamResponse>): Promise<string> {
  let taskId = '';
  for await (const event of events) {
    taskId ||= event.task?.id ?? '';
    if (event.statusUpdate?.status.state === 'TASK_STATE_WORKING') break;
  }
  return taskId;
}

describe('in-process cancel (server.stream signal and server.cancel)', () => {
  it("aborting the stream's signal cancels the task as CancelTask would (executor.cancel once, CANCELED)", async () => {
    const { executor, counts } = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor });
    const controller = new AbortController();
    const taskId = await untilWorking(server.stream(request(), { signal: controller.signal }));
    controller.abort();
    for (let i = 0; i < 50 && (await server.store.get({ tenant: '', taskId }))?.task.status.state !== 'TASK_STATE_CANCELED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await server.store.get({ tenant: '', taskId }))?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(counts.cancel).toBe(1);
    await server.close();
  });

  it('server.cancel cancels a task of the same principal; then the stream abort changes nothing', async () => {
    const { executor, counts } = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor });
    const controller = new AbortController();
    const principal = { id: 'alice', scheme: 'bearer' };
    const taskId = await untilWorking(server.stream(request(), { signal: controller.signal, principal }));
    await expect(server.cancel({ id: taskId }, { principal: { id: 'mallory', scheme: 'bearer' } })).rejects.toMatchObject({
      reason: 'TASK_NOT_FOUND',
    });
    const canceled = await server.cancel({ id: taskId }, { principal });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counts.cancel).toBe(1);
    expect((await server.store.get({ tenant: '', taskId }))?.task.status.state).toBe('TASK_STATE_CANCELED');
    await server.close();
  });
});
