import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { StreamResponse, TaskState } from '@a2aplane/a2a-types';
import type { TaskEventBus, TaskEventRecord, TaskSubscription } from '../../bus/task-event-bus.js';
import type { TaskKey } from '../../store/task-store.js';
import { within } from '../contract-api.js';

/** One shared backend, as replicas share one Redis: every `connect` is another replica's bus on it. */
export interface TaskEventBusContractBackend {
  connect(): TaskEventBus | Promise<TaskEventBus>;
  /** Releases the backend once the buses made by `connect` are closed. */
  dispose?(): void | Promise<void>;
}

export interface TaskEventBusContractOptions {
  /** A backend for one test. Tests use task keys of their own, so backends may share storage across tests and runs. */
  create(): TaskEventBusContractBackend | Promise<TaskEventBusContractBackend>;
  /** Longest wait for something delivered across buses (a cancel, a live event). Default 2 000 ms. */
  deliveryTimeoutMs?: number;
}

const status = (taskId: string, state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, n: number): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'c', status: { state }, metadata: { n } },
});

/** What every part of the TaskEventBus contract shares: replicas on one backend, fresh keys, event builders, draining. */
export function busFixture(options: TaskEventBusContractOptions) {
  const timeout = options.deliveryTimeoutMs ?? 2_000;
  const buses: TaskEventBus[] = [];
  const backends: TaskEventBusContractBackend[] = [];
  /** Two replicas on one backend. */
  const replicas = async (): Promise<[TaskEventBus, TaskEventBus]> => {
    const backend = await options.create();
    backends.push(backend);
    const a = await backend.connect();
    const b = await backend.connect();
    buses.push(a, b);
    return [a, b];
  };
  const key = (): TaskKey => ({ tenant: `contract-${randomUUID()}`, taskId: randomUUID() });
  const working = (taskId: string, n: number) => ({ event: status(taskId, 'TASK_STATE_WORKING', n), final: false, revision: n });
  const completed = (taskId: string, n: number) => ({ event: status(taskId, 'TASK_STATE_COMPLETED', n), final: true, revision: n });
  const numbers = (records: TaskEventRecord[]): unknown[] => records.map((r) => r.event.statusUpdate?.metadata?.n);
  /** Everything a subscription yields until it ends. */
  const drain = (subscription: TaskSubscription): Promise<TaskEventRecord[]> =>
    within(
      (async () => {
        const out: TaskEventRecord[] = [];
        for await (const record of subscription) out.push(record);
        return out;
      })(),
      timeout,
      'the subscription to end',
    );
  const subscribeOrFail = async (bus: TaskEventBus, k: TaskKey, afterId?: string, signal?: AbortSignal): Promise<TaskSubscription> => {
    const subscription = await bus.subscribe(k, { ...(afterId === undefined ? {} : { afterId }), ...(signal ? { signal } : {}) });
    assert.ok(subscription, 'subscribe resolved undefined for a valid id');
    return subscription;
  };
  return { options, timeout, buses, backends, replicas, key, working, completed, numbers, drain, subscribeOrFail, status };
}

export type BusFixture = ReturnType<typeof busFixture>;
