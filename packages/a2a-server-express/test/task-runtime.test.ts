import type { StreamResponse, Task } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { classifyAgentEvent } from '../src/core/agent-event.js';
import { TaskRuntime } from '../src/core/task-runtime.js';
import { testRun } from './helpers/test-run.js';
import {
  createInMemoryTaskEventBus,
  InMemoryTaskStore,
  type TaskCommit,
  TaskRevisionConflictError,
  TaskStoreFullError,
} from '../src/index.js';

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

describe('one classifier: every executor event is classified once', () => {
  it('a burst that falls back to event by event does not classify its events again', async () => {
    let reads = 0;
    // Counts the `in` checks that classifying an event makes (the fold and the write make none on it).
    const counted = () =>
      new Proxy(status('t', 'TASK_STATE_WORKING'), {
        has(target, key) {
          reads += 1;
          return key in target;
        },
      });
    classifyAgentEvent(counted(), 't');
    const once = reads;
    expect(once).toBeGreaterThan(0);
    const { runtime, errors } = runtimeWithLog();
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } });
    await runtime.enqueue(() => undefined);
    reads = 0;
    // A Message after a task: the folded write refuses the burst, which then goes event by event.
    runtime.publishFromAgent(counted());
    runtime.publishFromAgent({ messageId: 'x', role: 'ROLE_AGENT', parts: [{ text: 'late' }] });
    await runtime.enqueue(() => undefined);
    expect(reads).toBe(once);
    expect(errors).toEqual(['the agent published a Message after a Task']);
    expect(runtime.task?.status.state).toBe('TASK_STATE_FAILED');
  });

  it('sorts events into invalid, a Message, another task and this task; an event that throws when read is invalid', () => {
    expect(classifyAgentEvent({ nonsense: true } as never, 't')).toBe('invalid');
    expect(classifyAgentEvent({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'a' }] }, 't')).toMatchObject({
      message: { messageId: 'm' },
    });
    expect(classifyAgentEvent(status('other', 'TASK_STATE_WORKING'), 't')).toBe('foreign');
    expect(classifyAgentEvent(status('t', 'TASK_STATE_WORKING'), 't')).toMatchObject({ statusUpdate: { taskId: 't' } });
    const hostile = new Proxy(
      {},
      {
        has() {
          throw new Error('no');
        },
      },
    );
    expect(classifyAgentEvent(hostile as never, 't')).toBe('invalid');
  });
});

describe('the run lifecycle: beginRun and endRun bracket a run, and only the runtime writes its state', () => {
  it('a run without an answer ends with InvalidAgentResponse, then the end; the runtime is no longer running', async () => {
    const { runtime } = runtimeWithLog();
    const signals: string[] = [];
    await runtime.beginRun(testRun(runtime), (signal) => {
      signals.push(signal.type === 'error' ? `error ${(signal.error as Error).message}` : signal.type);
    });
    expect(runtime.running).toBe(true);
    expect(runtime.run?.context.taskId).toBe('t');
    expect(await runtime.endRun(undefined)).toBeUndefined();
    expect(signals).toEqual(['error The agent produced no response', 'end']);
    expect(runtime.running).toBe(false);
    expect(runtime.run).toBeUndefined();
    expect(runtime.idle).toBe(false);
  });

  it('an executor that threw mid-task ends it FAILED with a generic message; an A2A error it threw goes as it is', async () => {
    const { runtime, order } = runtimeWithLog();
    await runtime.beginRun(testRun(runtime), () => undefined);
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } });
    await runtime.endRun(new Error('secret detail'));
    expect(runtime.task?.status.state).toBe('TASK_STATE_FAILED');
    const text = runtime.task?.status.message?.parts[0];
    expect(text && 'text' in text ? text.text : '').not.toContain('secret');
    expect(order.at(-1)).toBe('2:TASK_STATE_FAILED');
  });

  it('a Message answer is the run outcome; a new run starts without it', async () => {
    const { runtime } = runtimeWithLog();
    await runtime.beginRun(testRun(runtime), () => undefined);
    runtime.publishFromAgent({ messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] });
    await runtime.endRun(undefined);
    expect(runtime.messageResponse?.messageId).toBe('a');
    await runtime.beginRun(testRun(runtime), () => undefined);
    expect(runtime.messageResponse).toBeUndefined();
  });

  it('a continuation whose history write meets another replica’s write does not start: not running, listener detached', async () => {
    const { runtime, deps } = runtimeWithLog();
    runtime.publishFromAgent({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    await runtime.enqueue(() => undefined);
    const stored = await deps.store.get({ tenant: '', taskId: 't' });
    // Another replica writes the task: this runtime's revision is stale.
    await deps.store.upsert({ tenant: '', owner: '', task: stored?.task as Task, updatedAt: Date.now() }, { expectedRevision: 1 });
    const heard: string[] = [];
    const listeners = runtime.listenerCount;
    const begun = runtime.beginRun(testRun(runtime), (signal) => heard.push(signal.type));
    expect(begun).toBeInstanceOf(Promise);
    await expect(begun).rejects.toSatisfy((error) => TaskRevisionConflictError.isInstance(error));
    expect(runtime.running).toBe(false);
    expect(runtime.listenerCount).toBe(listeners);
    expect(heard).toEqual([]);
  });
});
