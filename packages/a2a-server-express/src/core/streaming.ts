import type { TaskSubscription } from '../bus/task-event-bus.js';
import type { TaskKey } from '../store/task-store.js';
import {
  type A2ARequestMap,
  InternalError,
  InvalidParamsError,
  isTerminalTaskState,
  type Task,
  UnsupportedOperationError,
} from '@a2aplane/a2a-types';
import { EventQueue, SlowConsumerError } from './event-queue.js';
import type { RuntimeSignal, TaskRuntime } from './task-runtime.js';
import type { StreamEvent } from './types.js';
import { type Caller, toA2AError } from './caller.js';
import { isFinal, type ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';

/** Streams of task events: from a runtime's listeners, a repeated streaming send, and SubscribeToTask with Last-Event-ID. */
export function createStreaming(ctx: ServerContext, registry: TaskRegistry) {
  const { card, bus, bufferSize } = ctx;
  const { releaseIfIdle, runtimeFor, loadRecord } = registry;
  /** Turns runtime signals into a stream of SSE events; `seed` events go first. */
  function streamFrom(runtime: TaskRuntime, attach: (push: (signal: RuntimeSignal) => void) => () => void): AsyncIterable<StreamEvent> {
    let detach: () => void = () => undefined;
    const queue = new EventQueue<StreamEvent>(bufferSize, () => {
      detach();
      releaseIfIdle(runtime);
    });
    let closed = false;
    detach = attach((signal) => {
      if (closed) return;
      if (signal.type === 'event') {
        queue.push({ id: signal.id, data: signal.event });
        if (signal.final) {
          closed = true;
          queue.end();
        }
      } else if (signal.type === 'end') {
        closed = true;
        queue.end();
      } else {
        closed = true;
        queue.fail(toA2AError(signal.error));
      }
    });
    return queue;
  }

  /** A repeated streaming send: the original task as it is now, then its live events. */
  function streamRepeat(runtime: TaskRuntime): Promise<AsyncIterable<StreamEvent>> {
    return runtime.enqueue(async () => {
      const task = runtime.task;
      const message = runtime.messageResponse;
      const seed: RuntimeSignal | undefined = message
        ? { type: 'event', id: '0', event: { message }, final: true }
        : task
          ? { type: 'event', id: await newestEventId(runtime), event: { task }, final: isFinal(task) }
          : undefined;
      return streamFrom(runtime, (push) => {
        if (seed) push(seed);
        if (!runtime.running || (seed?.type === 'event' && seed.final)) {
          push({ type: 'end' });
          return () => undefined;
        }
        return runtime.addListener(push);
      });
    });
  }

  /** The id of the newest event of the runtime's task, for a snapshot sent as a stream's first event. */
  async function newestEventId(runtime: TaskRuntime): Promise<string> {
    return runtime.lastEventId ?? (await bus.read(runtime.key))?.lastId ?? '0';
  }

  async function subscribe(
    params: A2ARequestMap['SubscribeToTask'],
    caller: Caller,
    lastEventId: string | undefined,
  ): Promise<AsyncIterable<StreamEvent>> {
    if (!card.capabilities.streaming) throw new UnsupportedOperationError({ message: 'Streaming is not supported by this agent' });
    const key = { tenant: params.tenant ?? '', taskId: params.id };
    const runtime = await runtimeFor(key, caller);
    if (!runtime.running) {
      // Not running here: its events, if any come, are published by another replica (or a later run).
      releaseIfIdle(runtime);
      return subscribeThroughBus(key, caller, lastEventId);
    }
    // Inside the task's write queue: snapshot + log read + attach happen between two writes.
    return runtime.enqueue(async () => {
      const task = runtime.task as Task;
      if (isTerminalTaskState(task.status.state) && lastEventId === undefined) {
        throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
      }
      const seed: StreamEvent[] = [];
      let finalSeen = false;
      if (lastEventId === undefined) {
        seed.push({ id: await newestEventId(runtime), data: { task } });
      } else {
        const log = await bus.read(key, lastEventId);
        if (log === undefined) throw new InvalidParamsError({ message: 'Last-Event-ID must be an event id of this task' });
        if (log.gap) {
          // The log no longer reaches back to Last-Event-ID: send the whole task instead of a gap.
          seed.push({ id: log.lastId ?? lastEventId, data: { task } });
        } else {
          for (const entry of log.events) seed.push({ id: entry.id, data: entry.event });
        }
        finalSeen = isFinal(task) && seed.length > 0;
        if (seed.length === 0 && isTerminalTaskState(task.status.state)) {
          throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
        }
      }
      return streamFrom(runtime, (push) => {
        for (const event of seed) push({ type: 'event', id: event.id, event: event.data, final: false });
        if (finalSeen || (lastEventId !== undefined && isTerminalTaskState(task.status.state))) {
          push({ type: 'end' });
          return () => undefined;
        }
        return runtime.addListener(push);
      });
    });
  }

  /**
   * SubscribeToTask from the bus, for a task this replica does not run. With `Last-Event-ID`: the
   * log after it, then live events after the newest one read. Without (or when the log no longer
   * reaches back to it): the stored task, then the live events its revision does not hold yet.
   */
  async function subscribeThroughBus(key: TaskKey, caller: Caller, lastEventId: string | undefined): Promise<AsyncIterable<StreamEvent>> {
    let subscription: TaskSubscription | undefined;
    try {
      if (lastEventId !== undefined) {
        const log = await bus.read(key, lastEventId);
        if (log === undefined) throw new InvalidParamsError({ message: 'Last-Event-ID must be an event id of this task' });
        if (!log.gap) {
          subscription = await bus.subscribe(key, { afterId: log.lastId ?? lastEventId });
          if (subscription === undefined) throw new InternalError({ message: 'The event bus refused a subscription' });
          const { task } = await loadRecord(key, caller);
          const last = log.events.at(-1);
          if (last === undefined && isTerminalTaskState(task.status.state)) {
            throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
          }
          const seed = log.events.map((entry): StreamEvent => ({ id: entry.id, data: entry.event }));
          // The newest event ends a stream: nothing follows it.
          if (last?.final === true) subscription.close();
          return streamFromBus(seed, last?.final === true ? undefined : subscription, 0);
        }
      }
      subscription = await bus.subscribe(key);
      if (subscription === undefined) throw new InternalError({ message: 'The event bus refused a subscription' });
      const record = await loadRecord(key, caller);
      const { task } = record;
      if (isTerminalTaskState(task.status.state) && lastEventId === undefined) {
        throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
      }
      const seed: StreamEvent[] = [{ id: subscription.startId ?? '0', data: { task } }];
      if (isTerminalTaskState(task.status.state)) {
        subscription.close();
        return streamFromBus(seed, undefined, record.revision);
      }
      return streamFromBus(seed, subscription, record.revision);
    } catch (error) {
      subscription?.close();
      throw error;
    }
  }

  /** `seed`, then the subscription's events newer than `revision` (none: it ends after the seed), as one stream. */
  function streamFromBus(seed: StreamEvent[], subscription: TaskSubscription | undefined, revision: number): AsyncIterable<StreamEvent> {
    const queue = new EventQueue<StreamEvent>(bufferSize, () => subscription?.close());
    for (const event of seed) queue.push(event);
    if (subscription === undefined) {
      queue.end();
      return queue;
    }
    void (async () => {
      try {
        for await (const record of subscription) {
          if (record.revision > revision) queue.push({ id: record.id, data: record.event });
        }
        queue.end();
      } catch (error) {
        queue.fail(SlowConsumerError.isInstance(error) ? error : toA2AError(error));
      }
    })();
    return queue;
  }

  return { streamFrom, streamRepeat, subscribe };
}

export type Streaming = ReturnType<typeof createStreaming>;
