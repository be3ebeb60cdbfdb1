import type { StreamResponse } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { TaskRuntime } from '../src/core/task-runtime.js';
import { testRun } from './helpers/test-run.js';
import { createInMemoryTaskEventBus, InMemoryTaskStore, type TaskCommit, TaskStoreFullError } from '../src/index.js';

const status = (taskId: string, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED') => ({
  taskId,
  contextId: 'c',
  status: { state, timestamp: '2026-01-01T00:00:00.000Z' },
});

function runtimeWithLog(): {
  runtime: TaskRuntime;
  order: string[];
  errors: string[];
  deps: { store: InMemoryTaskStore; bus: ReturnType<typeof createInMemoryTaskEventBus> };
} {
  const order: string[] = [];
  const errors: string[] = [];
  const deps = {
    store: new InMemoryTaskStore(),
    bus: createInMemoryTaskEventBus(),
    pushSender: undefined,
    onAgentError: (message: string) => errors.push(message),
  };
  const runtime = new TaskRuntime({ tenant: '', taskId: 't' }, '', 'c', deps);
  runtime.addListener((signal) => {
    if (signal.type !== 'event') return;
    const event: StreamResponse = signal.event;
    order.push(`${signal.id}:${event.task ? 'task' : (event.statusUpdate?.status.state ?? 'other')}`);
  });
  return { runtime, order, errors, deps };
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

  it('a burst of task events is stored with one write; the log and the listeners still get every event, in order', async () => {
    const { runtime, order, deps } = runtimeWithLog();
    const upsert = deps.store.upsert.bind(deps.store);
    const written: string[] = [];
    deps.store.upsert = async (record, options) => {
      written.push(record.task.status.state);
      return upsert(record, options);
    };
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    runtime.publishFromAgent({ taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'hi' }] } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    await runtime.enqueue(() => undefined);
    expect(written).toEqual(['TASK_STATE_COMPLETED']);
    expect(order).toEqual(['1:task', '2:TASK_STATE_WORKING', '3:other', '4:TASK_STATE_COMPLETED']);
    // The first event is the task as it was created, not as the burst left it.
    const log = await deps.bus.read({ tenant: '', taskId: 't' });
    expect(log?.events.map((e) => e.event.task?.status.state ?? e.event.statusUpdate?.status.state ?? 'artifact')).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'artifact',
      'TASK_STATE_COMPLETED',
    ]);
    expect(log?.events[0]?.event.task?.artifacts).toBeUndefined();
    // One write: every event carries its revision, which the stored task holds.
    expect(log?.events.map((e) => e.revision)).toEqual([1, 1, 1, 1]);
    expect(log?.events.map((e) => e.final)).toEqual([false, false, false, true]);
    const stored = await deps.store.get({ tenant: '', taskId: 't' });
    expect(stored?.revision).toBe(1);
    expect(stored?.task.artifacts?.[0]?.parts).toEqual([{ text: 'hi' }]);
    expect(runtime.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a burst with an event accept refuses goes event by event: the events before it are stored, then the task FAILS', async () => {
    const { runtime, order, errors } = runtimeWithLog();
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    runtime.publishFromAgent(status('another', 'TASK_STATE_COMPLETED'));
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    await runtime.enqueue(() => undefined);
    expect(errors).toEqual(['the agent published an event for another task']);
    expect(order).toEqual(['1:task', '2:TASK_STATE_WORKING', '3:TASK_STATE_FAILED']);
    expect(runtime.task?.status.state).toBe('TASK_STATE_FAILED');
  });

  it('an event the store refuses ends the task FAILED; the events after it are dropped', async () => {
    const { runtime, order, errors, deps } = runtimeWithLog();
    const store = deps.store;
    const upsert = store.upsert.bind(store);
    // Refuses the task WORKING or COMPLETED (the burst's one write too), stores it SUBMITTED or FAILED.
    store.upsert = async (record, options) => {
      if (record.task.status.state === 'TASK_STATE_WORKING' || record.task.status.state === 'TASK_STATE_COMPLETED')
        throw new Error('store hiccup');
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

describe('TaskRuntime with a bus that commits (TaskEventBus.committerFor, decision 0039)', () => {
  /** A runtime whose commit writes and publishes through the in-memory store and bus, recording every call. */
  function committingRuntime(): { runtime: TaskRuntime; calls: string[]; order: string[]; store: InMemoryTaskStore } {
    const calls: string[] = [];
    const order: string[] = [];
    const store = new InMemoryTaskStore();
    const bus = createInMemoryTaskEventBus();
    const upsert = store.upsert.bind(store);
    store.upsert = (record, options) => {
      calls.push(`upsert ${record.task.status.state}`);
      return upsert(record, options);
    };
    const publish = bus.publish.bind(bus);
    bus.publish = (key, input) => {
      calls.push('publish');
      return publish(key, input);
    };
    const commit: TaskCommit = async (record, options, events) => {
      calls.push(`commit ${record.task.status.state} x${events.length}`);
      const revision = await upsert(record, options);
      const ids: string[] = [];
      for (const event of events) ids.push(`c${await publish({ tenant: record.tenant, taskId: record.task.id }, { ...event, revision })}`);
      return { revision, ids };
    };
    const runtime = new TaskRuntime({ tenant: '', taskId: 't' }, '', 'c', {
      store,
      bus,
      commit,
      pushSender: undefined,
      onAgentError: () => undefined,
    });
    runtime.addListener((signal) => {
      if (signal.type === 'event') order.push(`${signal.id}:${signal.event.statusUpdate?.status.state ?? Object.keys(signal.event)[0]}`);
    });
    return { runtime, calls, order, store };
  }

  it('a burst is one commit; the listeners get the ids the commit gave', async () => {
    const { runtime, calls, order } = committingRuntime();
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    runtime.publishFromAgent(status('t', 'TASK_STATE_WORKING'));
    await runtime.enqueue(() => undefined);
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    await runtime.enqueue(() => undefined);
    expect(calls).toEqual(['commit TASK_STATE_WORKING x2', 'commit TASK_STATE_COMPLETED x1']);
    expect(order).toEqual(['c1:task', 'c2:TASK_STATE_WORKING', 'c3:TASK_STATE_COMPLETED']);
    expect(runtime.lastEventId).toBe('c3');
  });

  it('a new task with an inline push config is written, then its config stored, then its event published: no commit', async () => {
    const { runtime, calls, store } = committingRuntime();
    await runtime.beginRun(testRun(runtime, { pushConfig: { id: 'p', taskId: 't', url: 'https://example.com/hook' } }), () => undefined);
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } });
    await runtime.enqueue(() => undefined);
    runtime.publishFromAgent(status('t', 'TASK_STATE_COMPLETED'));
    await runtime.enqueue(() => undefined);
    expect(calls).toEqual(['upsert TASK_STATE_WORKING', 'publish', 'commit TASK_STATE_COMPLETED x1']);
    expect(await store.listPushConfigs({ tenant: '', taskId: 't' })).toHaveLength(1);
  });
});
