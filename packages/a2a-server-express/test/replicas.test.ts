import { A2AError, type Task } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createInMemoryTaskEventBackend,
  createInMemoryTaskEventBus,
  createTaskUpdater,
  InMemoryTaskStore,
  type OrphanedTaskHandler,
  type StreamEvent,
  type TaskEventBus,
} from '../src/index.js';
import { createGate, testCard, userMessage } from './helpers.js';

/** Two replicas of one agent on one store and one bus backend, as two processes on one Redis. */
function replicas(executor: AgentExecutor): { a: A2AServer; b: A2AServer; store: InMemoryTaskStore } {
  const store = new InMemoryTaskStore();
  const backend = createInMemoryTaskEventBackend();
  const make = () => createA2AServer({ card: testCard(), executor, store, eventBus: createInMemoryTaskEventBus({ backend }) });
  const pair = { a: make(), b: make(), store };
  opened.push(pair.a, pair.b);
  return pair;
}

const opened: A2AServer[] = [];
afterEach(async () => {
  for (const server of opened.splice(0)) await server.close();
});

/** An executor that works through `steps` artifact chunks, each after its gate opens, then completes. */
function steppedExecutor(gates: { wait: Promise<void> }[], seen: { signal?: AbortSignal } = {}): AgentExecutor {
  return {
    async execute(context, events) {
      seen.signal = context.signal;
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork();
      for (let i = 0; i < gates.length; i++) {
        await gates[i]?.wait;
        if (context.signal.aborted) return;
        task.addArtifact([{ text: `c${i}` }], { artifactId: 'a', append: i > 0 });
      }
      task.complete();
    },
  };
}

async function startTask(server: A2AServer): Promise<string> {
  const sent = await server.handle({
    method: 'SendMessage',
    params: { message: userMessage('go'), configuration: { returnImmediately: true } },
    version: '1.0',
  });
  if (sent.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(sent)}`);
  return ((sent.result as { task: Task }).task as Task).id;
}

async function openStream(server: A2AServer, id: string, lastEventId?: string): Promise<AsyncIterable<StreamEvent>> {
  const response = await server.handle({
    method: 'SubscribeToTask',
    params: { id },
    version: '1.0',
    ...(lastEventId === undefined ? {} : { lastEventId }),
  });
  if (response.kind !== 'stream') throw new Error(`expected a stream, got ${JSON.stringify(response)}`);
  return response.events;
}

async function readAll(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const untilLog = async (server: A2AServer, id: string, length: number): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    if (((await server.eventBus.read({ tenant: '', taskId: id }))?.events.length ?? 0) >= length) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`the log of ${id} did not reach ${length} events`);
};

describe('replicas sharing a store and an event bus', () => {
  it('SubscribeToTask on a replica that does not run the task: the stored task, then the live events of the runner', async () => {
    const gates = [createGate(), createGate()];
    const { a, b } = replicas(steppedExecutor(gates));
    const id = await startTask(a);
    await untilLog(a, id, 2);
    const stream = readAll(await openStream(b, id));
    gates[0]?.open();
    gates[1]?.open();
    const events = await stream;
    const log = (await b.eventBus.read({ tenant: '', taskId: id }))?.events ?? [];
    // The snapshot carries the id of the newest event it holds; the live events follow it exactly.
    expect(events[0]?.data.task?.status.state).toBe('TASK_STATE_WORKING');
    expect(events[0]?.id).toBe(log[1]?.id);
    expect(events.slice(1)).toEqual(log.slice(2).map((e) => ({ id: e.id, data: e.event })));
    expect(events.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a stream dropped on the runner resumes with Last-Event-ID on the other replica: no event lost, none twice', async () => {
    const gates = [createGate(), createGate(), createGate()];
    const { a, b } = replicas(steppedExecutor(gates));
    const sent = await a.handle({ method: 'SendStreamingMessage', params: { message: userMessage('go') }, version: '1.0' });
    if (sent.kind !== 'stream') throw new Error('expected a stream');
    const seen: StreamEvent[] = [];
    const iterator = sent.events[Symbol.asyncIterator]();
    for (let i = 0; i < 2; i++) seen.push((await iterator.next()).value as StreamEvent);
    gates[0]?.open();
    seen.push((await iterator.next()).value as StreamEvent);
    await iterator.return?.();
    const id = seen[0]?.data.task?.id as string;
    const resumed = readAll(await openStream(b, id, seen.at(-1)?.id));
    gates[1]?.open();
    gates[2]?.open();
    for (const event of await resumed) seen.push(event);
    const log = (await b.eventBus.read({ tenant: '', taskId: id }))?.events ?? [];
    expect(seen).toEqual(log.map((e) => ({ id: e.id, data: e.event })));
    expect(seen.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('CancelTask on another replica reaches the runner: its executor is aborted and both sides see CANCELED', async () => {
    const gates = [createGate()];
    const seen: { signal?: AbortSignal } = {};
    const { a, b, store } = replicas(steppedExecutor(gates, seen));
    const id = await startTask(a);
    await untilLog(a, id, 2);
    const onRunner = readAll(await openStream(a, id));
    const canceled = await b.handle({ method: 'CancelTask', params: { id, metadata: { by: 'b' } }, version: '1.0' });
    expect(canceled.kind === 'result' && (canceled.result as Task).status.state).toBe('TASK_STATE_CANCELED');
    expect(seen.signal?.aborted).toBe(true);
    const runnerEvents = await onRunner;
    expect(runnerEvents.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
    expect(runnerEvents.at(-1)?.data.statusUpdate?.metadata).toEqual({ by: 'b' });
    gates[0]?.open();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.get({ tenant: '', taskId: id }))?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(a.stats()).toEqual({ liveTasks: 0, subscribers: 0 });
  });

  it('CancelTask of a task no replica runs (waiting for input) is written by the replica it lands on', async () => {
    const { a, b, store } = replicas({
      async execute(context, events) {
        createTaskUpdater(context, events).requireInput('more?');
      },
    });
    const sent = await a.handle({ method: 'SendMessage', params: { message: userMessage('go') }, version: '1.0' });
    const id = ((sent as { result: { task: Task } }).result.task as Task).id;
    const stream = readAll(await openStream(a, id));
    const canceled = await b.handle({ method: 'CancelTask', params: { id }, version: '1.0' });
    expect(canceled.kind === 'result' && (canceled.result as Task).status.state).toBe('TASK_STATE_CANCELED');
    const stored = await store.get({ tenant: '', taskId: id });
    expect(stored?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(stored?.revision).toBeGreaterThan(1);
    // A subscriber on the other replica hears it.
    expect((await stream).at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('a runner whose write meets a task another replica ended stops: its executor is aborted, the stored end stays', async () => {
    const gates = [createGate()];
    const seen: { signal?: AbortSignal } = {};
    const { a, store } = replicas(steppedExecutor(gates, seen));
    const sent = await a.handle({ method: 'SendStreamingMessage', params: { message: userMessage('go') }, version: '1.0' });
    if (sent.kind !== 'stream') throw new Error('expected a stream');
    const events = readAll(sent.events);
    const key = { tenant: '', taskId: '' };
    for (let i = 0; i < 200 && key.taskId === ''; i++) {
      const page = await store.list({ tenant: '', owner: '', pageSize: 1 });
      key.taskId = page?.records[0]?.task.id ?? '';
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await untilLog(a, key.taskId, 2);
    // Another replica's CancelTask that did not reach the runner: a compare-and-set write of its own.
    const stored = await store.get(key);
    if (!stored) throw new Error('expected the task stored');
    const ended = { ...stored.task, status: { state: 'TASK_STATE_CANCELED' as const, timestamp: new Date().toISOString() } };
    await store.upsert({ tenant: '', owner: stored.owner, task: ended, updatedAt: Date.now() }, { expectedRevision: stored.revision });
    gates[0]?.open();
    const got = await events;
    expect(got.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
    expect(seen.signal?.aborted).toBe(true);
    const after = await store.get(key);
    expect(after?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(after?.task.artifacts).toBeUndefined();
  });
});

/** A bus of one backend that, like a bus watching replicas' liveness, hands the test the handler its server registered. */
function watchingBus(backend: ReturnType<typeof createInMemoryTaskEventBackend>): TaskEventBus & { handler?: OrphanedTaskHandler } {
  const inner = createInMemoryTaskEventBus({ backend });
  const bus: TaskEventBus & { handler?: OrphanedTaskHandler } = {
    publish: (key, input) => inner.publish(key, input),
    read: (key, afterId) => inner.read(key, afterId),
    subscribe: (key, options) => inner.subscribe(key, options),
    requestCancel: (key, request) => inner.requestCancel(key, request),
    onCancel: (key, handler) => inner.onCancel(key, handler),
    close: () => inner.close(),
    onOrphanedTask(handler) {
      bus.handler = handler;
      return () => {
        bus.handler = undefined;
      };
    },
  };
  return bus;
}

const replicaLost = () =>
  new A2AError(
    {
      reason: 'REPLICA_LOST',
      domain: 'test.a2aplane',
      jsonRpcCode: -32000,
      httpStatus: 503,
      grpcStatus: 'UNAVAILABLE',
      message: 'The replica running the task was lost',
      retryable: true,
    },
    { metadata: { replica: 'r1' } },
  );

describe('a task whose runner died, ended through the bus seam (onOrphanedTask)', () => {
  function watchedReplicas(executor: AgentExecutor) {
    const store = new InMemoryTaskStore();
    const backend = createInMemoryTaskEventBackend();
    const busA = watchingBus(backend);
    const busB = watchingBus(backend);
    const a = createA2AServer({ card: testCard(), executor, store, eventBus: busA });
    const b = createA2AServer({ card: testCard(), executor, store, eventBus: busB });
    opened.push(a, b);
    return { a, b, busA, busB, store };
  }

  it('the server registers a handler on a shared bus that offers the seam, and drops it on close', async () => {
    const { a, busA } = watchedReplicas(steppedExecutor([]));
    expect(typeof busA.handler).toBe('function');
    await a.close();
    expect(busA.handler).toBeUndefined();
  });

  it('another replica ends the task FAILED with the reason in its status message; its subscribers get the final event', async () => {
    const gates = [createGate()];
    const seen: { signal?: AbortSignal } = {};
    const { a, b, busB, store } = watchedReplicas(steppedExecutor(gates, seen));
    const id = await startTask(a);
    await untilLog(a, id, 2);
    const onB = readAll(await openStream(b, id));
    expect(await busB.handler?.({ tenant: '', taskId: id }, replicaLost())).toBe(true);
    const events = await onB;
    const last = events.at(-1)?.data.statusUpdate;
    expect(last?.status.state).toBe('TASK_STATE_FAILED');
    expect(last?.status.message?.parts).toEqual([
      { text: 'The replica running the task was lost' },
      {
        data: {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'REPLICA_LOST',
          domain: 'test.a2aplane',
          metadata: { replica: 'r1' },
        },
      },
    ]);
    const stored = await store.get({ tenant: '', taskId: id });
    expect(stored?.task.status.state).toBe('TASK_STATE_FAILED');
    // One FAILED event in the log: the write went through the task's compare-and-set and one publish.
    const log = (await b.eventBus.read({ tenant: '', taskId: id }))?.events ?? [];
    expect(log.filter((e) => e.event.statusUpdate?.status.state === 'TASK_STATE_FAILED')).toHaveLength(1);
    // Here the "dead" runner was alive after all: its next write conflicts, it stops and the FAILED end stays.
    gates[0]?.open();
    for (let i = 0; i < 200 && !seen.signal?.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(seen.signal?.aborted).toBe(true);
    expect((await store.get({ tenant: '', taskId: id }))?.task.status.state).toBe('TASK_STATE_FAILED');
  });

  it('the replica running the task ignores it (its runner is alive), and a terminal task is left as it is', async () => {
    const gates = [createGate()];
    const { a, b, busA, busB, store } = watchedReplicas(steppedExecutor(gates));
    const id = await startTask(a);
    await untilLog(a, id, 2);
    const key = { tenant: '', taskId: id };
    const before = await store.get(key);
    expect(await busA.handler?.(key, replicaLost())).toBe(false);
    expect(await store.get(key)).toEqual(before);
    // Subscribe before the runner may finish: a finished task has no stream to open.
    const stream = await openStream(b, id);
    gates[0]?.open();
    const done = await readAll(stream);
    expect(done.at(-1)?.data.statusUpdate?.status.state ?? done.at(-1)?.data.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const completed = await store.get(key);
    expect(await busB.handler?.(key, replicaLost())).toBe(false);
    expect(await store.get(key)).toEqual(completed);
  });

  it('a runner that died between its final write and its publish: the end is published, not written again', async () => {
    const gates = [createGate()];
    const { a, b, busB, store } = watchedReplicas(steppedExecutor(gates));
    const id = await startTask(a);
    await untilLog(a, id, 2);
    const key = { tenant: '', taskId: id };
    const onB = readAll(await openStream(b, id));
    // The store says COMPLETED, the log never heard it (as if the runner died between the two).
    const stored = await store.get(key);
    if (!stored) throw new Error('expected the task stored');
    const ended = { ...stored.task, status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: new Date().toISOString() } };
    await store.upsert({ tenant: '', owner: stored.owner, task: ended, updatedAt: Date.now() }, { expectedRevision: stored.revision });
    expect(await busB.handler?.(key, replicaLost())).toBe(false);
    const events = await onB;
    expect(events.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await store.get(key))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    // Asked again: the log ends now, nothing more is published.
    const before = (await b.eventBus.read(key))?.events.length;
    expect(await busB.handler?.(key, replicaLost())).toBe(false);
    expect((await b.eventBus.read(key))?.events.length).toBe(before);
    gates[0]?.open();
  });

  it('two replicas told at once: the compare-and-set lets exactly one write the failure', async () => {
    const gates = [createGate()];
    const store = new InMemoryTaskStore();
    const backend = createInMemoryTaskEventBackend();
    const buses = [watchingBus(backend), watchingBus(backend), watchingBus(backend)];
    const [a, b, c] = buses.map((eventBus) => createA2AServer({ card: testCard(), executor: steppedExecutor(gates), store, eventBus }));
    opened.push(a as A2AServer, b as A2AServer, c as A2AServer);
    const id = await startTask(a as A2AServer);
    await untilLog(a as A2AServer, id, 2);
    const key = { tenant: '', taskId: id };
    const wrote = await Promise.all([buses[1]?.handler?.(key, replicaLost()), buses[2]?.handler?.(key, replicaLost())]);
    expect(wrote.filter(Boolean)).toHaveLength(1);
    const log = (await (b as A2AServer).eventBus.read(key))?.events ?? [];
    expect(log.filter((e) => e.event.statusUpdate?.status.state === 'TASK_STATE_FAILED')).toHaveLength(1);
    gates[0]?.open();
  });
});
