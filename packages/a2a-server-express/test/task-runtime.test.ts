import type { StreamResponse } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { TaskRuntime } from '../src/core/task-runtime.js';
import { createInMemoryTaskEventBus, InMemoryTaskStore, TaskStoreFullError } from '../src/index.js';

const status = (taskId: string, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED') => ({
  taskId,
  contextId: 'c',
  status: { state, timestamp: '2026-01-01T00:00:00.000Z' },
});

function runtimeWithLog(): { runtime: TaskRuntime; order: string[]; errors: string[] } {
  const order: string[] = [];
  const errors: string[] = [];
  const runtime = new TaskRuntime({ tenant: '', taskId: 't' }, '', 'c', {
    store: new InMemoryTaskStore(),
    bus: createInMemoryTaskEventBus(),
    pushSender: undefined,
    onAgentError: (message) => errors.push(message),
  });
  runtime.addListener((signal) => {
    if (signal.type !== 'event') return;
    const event: StreamResponse = signal.event;
    order.push(`${signal.id}:${event.task ? 'task' : (event.statusUpdate?.status.state ?? 'other')}`);
  });
  return { runtime, order, errors };
}

describe('TaskRuntime write queue', () => {
  it('executor events published back to back are applied in order; a write queued between them keeps its place', async () => {
    const { runtime, order } = runtimeWithLog();
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    const between = runtime.enqueue(() => {
      order.push('queued write');
    });
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    // Dropped: nothing leaves a terminal state.
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    await between;
    await runtime.enqueue(() => undefined);
    expect(order).toEqual(['1:task', '2:TASK_STATE_WORKING', 'queued write', '3:TASK_STATE_COMPLETED']);
    expect(runtime.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an event the store refuses ends the task FAILED; the events after it are dropped', async () => {
    const { runtime, order, errors } = runtimeWithLog();
    const store = (runtime as unknown as { deps: { store: InMemoryTaskStore } }).deps.store;
    const upsert = store.upsert.bind(store);
    let calls = 0;
    store.upsert = async (record, options) => {
      calls += 1;
      if (calls === 2) throw new Error('store hiccup');
      return upsert(record, options);
    };
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    await runtime.enqueue(() => undefined);
    expect(errors).toEqual(['event processing failed: store hiccup']);
    expect(order).toEqual(['1:task', '2:TASK_STATE_FAILED']);
    expect(runtime.task?.status.state).toBe('TASK_STATE_FAILED');
    expect((await store.get({ tenant: '', taskId: 't' }))?.task.status.state).toBe('TASK_STATE_FAILED');
  });

  it("a first event the store refuses fails the listeners with the store's wire error", async () => {
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    await store.upsert(
      {
        tenant: '',
        owner: '',
        task: { id: 'other', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
        updatedAt: 0,
      },
      { expectedRevision: 0 },
    );
    const errors: unknown[] = [];
    const runtime = new TaskRuntime({ tenant: '', taskId: 't' }, '', 'c', {
      store,
      bus: createInMemoryTaskEventBus(),
      pushSender: undefined,
      onAgentError: () => undefined,
    });
    runtime.addListener((signal) => {
      if (signal.type === 'error') errors.push(signal.error);
    });
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    await runtime.enqueue(() => undefined);
    expect(errors).toHaveLength(1);
    expect(TaskStoreFullError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as TaskStoreFullError).code).toBe(-32000);
    expect((errors[0] as TaskStoreFullError).httpStatus).toBe(429);
  });
});
