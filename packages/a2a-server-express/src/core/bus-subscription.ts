import { InternalError, InvalidParamsError, isTerminalTaskState, UnsupportedOperationError } from '@a2aplane/a2a-types';
import type { TaskSubscription } from '../bus/task-event-bus.js';
import type { TaskKey } from '../store/task-store.js';
import { type Caller, toA2AError } from './caller.js';
import { createEventQueue, SlowConsumerError } from './event-queue.js';
import type { ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import type { StreamEvent } from './types.js';

/** SubscribeToTask of a task this replica does not run: its events come through the bus, from the replica that runs it. */
export function createBusSubscription(ctx: ServerContext, registry: TaskRegistry) {
  const { bus, bufferSize } = ctx;
  const { loadRecord } = registry;

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
    const queue = createEventQueue<StreamEvent>(bufferSize, () => subscription?.close());
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

  return subscribeThroughBus;
}
