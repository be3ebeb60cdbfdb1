import { type A2AError, BudgetExceededError, PolicyViolationError, RateLimitedError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type AgentExecutor, InMemoryTaskStore, type TaskStore } from '../src/index.js';
import { createGate, rpc, startServer, userMessage } from './helpers.js';

/** An executor that counts its runs and holds each one live until the gate opens. */
function countingExecutor(gate: { wait: Promise<void> }) {
  const runs = { started: 0, aborted: 0 };
  const executor: AgentExecutor = {
    async execute(context, events) {
      runs.started += 1;
      context.signal.addEventListener('abort', () => {
        runs.aborted += 1;
      });
      events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
      await gate.wait;
      events.publish({ taskId: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    },
  };
  return { runs, executor };
}

describe('a refused SendMessage runs nothing (issue 31 item 4)', () => {
  it('20 refusals of a full store: 0 executions started', async () => {
    const gate = createGate();
    const { runs, executor } = countingExecutor(gate);
    const server = await startServer({ store: new InMemoryTaskStore({ maxTasks: 1 }), executor });
    try {
      const first = await rpc(server.url, 'SendMessage', { message: userMessage('live'), configuration: { returnImmediately: true } });
      expect(first.body.result).toBeDefined();
      expect(runs.started).toBe(1);
      for (let i = 0; i < 20; i++) {
        const refused = await rpc(server.url, 'SendMessage', { message: userMessage(`refused ${i}`) });
        expect(JSON.stringify(refused.body.error)).toContain('RATE_LIMITED');
      }
      // Let any execution that had been started in the background show up.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs.started).toBe(1);
    } finally {
      gate.open();
      await server.close();
    }
  });

  it('a store that can only refuse at the first write: the executor that started is aborted', async () => {
    const gate = createGate();
    const { runs, executor } = countingExecutor(gate);
    const inner = new InMemoryTaskStore({ maxTasks: 1 });
    // Everything but admitTask: the refusal comes with the first write (a race another caller won).
    const store: TaskStore = {
      get: (key) => inner.get(key),
      upsert: (record, options) => inner.upsert(record, options),
      list: (query) => inner.list(query),
      delete: (key) => inner.delete(key),
      putPushConfig: (key, config) => inner.putPushConfig(key, config),
      listPushConfigs: (key) => inner.listPushConfigs(key),
      deletePushConfig: (key, id) => inner.deletePushConfig(key, id),
      claimSendKey: (key, taskId) => inner.claimSendKey(key, taskId),
      releaseSendKey: (key, taskId) => inner.releaseSendKey(key, taskId),
    };
    const server = await startServer({ store, executor });
    try {
      await rpc(server.url, 'SendMessage', { message: userMessage('live'), configuration: { returnImmediately: true } });
      const refused = await rpc(server.url, 'SendMessage', { message: userMessage('refused') });
      expect(JSON.stringify(refused.body.error)).toContain('RATE_LIMITED');
      expect(runs).toEqual({ started: 2, aborted: 1 });
    } finally {
      gate.open();
      await server.close();
    }
  });

  it('refusals for policy, budget, concurrency or an unsafe push URL: 0 executions started', async () => {
    const gate = createGate();
    gate.open();
    const { runs, executor } = countingExecutor(gate);
    const refusals: A2AError[] = [
      new PolicyViolationError({ message: 'not allowed' }),
      new BudgetExceededError({ message: 'over budget' }),
      new RateLimitedError({ message: 'no concurrency slot' }),
    ];
    let next = 0;
    const server = await startServer({
      executor,
      governance: {
        readTaskContext: () => ({ ok: true, context: undefined }),
        admit: async () => {
          throw refusals[next++ % refusals.length] as A2AError;
        },
      },
    });
    try {
      for (let i = 0; i < 6; i++) {
        const refused = await rpc(server.url, 'SendMessage', { message: userMessage(`refused ${i}`) });
        expect(refused.body.error).toBeDefined();
      }
      const unsafe = await rpc(server.url, 'SendMessage', {
        message: userMessage('push to the metadata service'),
        configuration: { taskPushNotificationConfig: { url: 'http://169.254.169.254/hook' } },
      });
      expect(unsafe.body.error).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs.started).toBe(0);
    } finally {
      await server.close();
    }
  });
});
