import { type A2ARequestMap, InvalidParamsError, isTerminalTaskState, type Task, UnsupportedOperationError } from '@a2aplane/a2a-types';
import { createBusSubscription } from './bus-subscription.js';
import { createEventQueue } from './event-queue.js';
import type { RuntimeSignal, TaskRuntime } from './task-runtime.js';
import type { StreamEvent } from './types.js';
import { type Caller, toA2AError } from './caller.js';
import { isFinal, type ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';

/** Streams of task events: from a runtime's listeners, a repeated streaming send, and SubscribeToTask with Last-Event-ID. */
export function createStreaming(ctx: ServerContext, registry: TaskRegistry) {
  const { card, bus, bufferSize } = ctx;
  const { releaseIfIdle, runtimeFor } = registry;
  const subscribeThroughBus = createBusSubscription(ctx, registry);
  /** Turns runtime signals into a stream of SSE events; `seed` events go first. */
  function streamFrom(runtime: TaskRuntime, attach: (push: (signal: RuntimeSignal) => void) => () => void): AsyncIterable<StreamEvent> {
    let detach: () => void = () => undefined;
    const queue = createEventQueue<StreamEvent>(bufferSize, () => {
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
    const live = runtime.running
      ? await runtime.enqueue(() => (runtime.running ? subscribeLive(runtime, lastEventId) : undefined))
      : undefined;
    if (live) return live;
    // Not running here (or its run ended before the queue got to this subscriber): its events, if any
    // come, are published by another replica (or a later run).
    releaseIfIdle(runtime);
    return subscribeThroughBus(key, caller, lastEventId);
  }

  /**
   * SubscribeToTask of a task this replica runs, in its write queue while the run goes on: snapshot,
   * log read and attach happen between two writes, and the run's end ends the stream.
   */
  async function subscribeLive(runtime: TaskRuntime, lastEventId: string | undefined): Promise<AsyncIterable<StreamEvent>> {
    const key = runtime.key;
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
  }

  return { streamFrom, streamRepeat, subscribe };
}

export type Streaming = ReturnType<typeof createStreaming>;
