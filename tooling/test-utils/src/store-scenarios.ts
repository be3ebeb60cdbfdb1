// Scenarios every shared store (Redis, PostgreSQL) runs the same way: a replica killed with pending
// push deliveries, a replica killed mid-task, refused sends. Each is one async function that throws
// (node:assert) when the store fails it; a package's test names it and supplies the store's parts.
// Typed structurally: this package cannot depend on the server package whose tests use it.
import assert from 'node:assert/strict';
import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { performance } from 'node:perf_hooks';
import { forkFixture, killHard, readAll, sendMessage, sleep, startHoldingReceiver, waitFor } from './replicas.js';

export interface PushOutboxKillOptions {
  /** What the log line names, e.g. `Redis`. */
  label: string;
  /**
   * The child replica: given `RECEIVER_URL`, `COUNT` and `LEASE_MS` (and `env`), it sends COUNT
   * notifications through a push sender on the store's outbox and reports over IPC once the outbox
   * holds them all.
   */
  fixture: URL;
  env: Record<string, string>;
  leaseMs: number;
  /** The surviving replica: a push sender on the same outbox, reporting its delivery events. */
  startSurvivor(onEvent: (event: { type: string }) => void): { flush(): Promise<void>; close(): Promise<void> };
  /** How many entries the outbox still holds. */
  remaining(): Promise<number>;
  /** Bound on the survivor's deliveries. Default 30 s. */
  deliverWithinMs?: number;
}

/**
 * A replica SIGKILLed with 100 pending deliveries (some in flight, held by the receiver): another
 * replica delivers 100 of 100, the interrupted ones under their idempotency keys, and acknowledges
 * them all (the outbox is left empty).
 */
export async function pushOutboxKillScenario(options: PushOutboxKillOptions): Promise<void> {
  const count = 100;
  const receiver = await startHoldingReceiver();
  let child: Awaited<ReturnType<typeof forkFixture>>['child'] | undefined;
  try {
    const env = { ...options.env, RECEIVER_URL: receiver.url, COUNT: String(count), LEASE_MS: String(options.leaseMs) };
    ({ child } = await forkFixture(options.fixture, env));
    // Some attempts are in flight (held by the receiver), the rest wait: none delivered. On a
    // loaded machine the first attempts may reach the receiver after the outbox holds everything.
    for (let i = 0; i < 500 && receiver.heldKeys.length === 0; i++) await sleep(20);
    assert.equal(receiver.delivered.size, 0);
    await killHard(child);
    receiver.state.holding = false;

    const events: Array<{ type: string }> = [];
    const survivor = options.startSurvivor((event) => events.push(event));
    const deadline = performance.now() + (options.deliverWithinMs ?? 30_000);
    while (receiver.delivered.size < count && performance.now() < deadline) await sleep(20);
    await survivor.flush();
    await survivor.close();
    console.info(`[push outbox, ${options.label}] after SIGKILL: ${receiver.delivered.size} of ${count} delivered by the survivor`);
    assert.equal(receiver.delivered.size, count);
    assert.equal(events.filter((e) => e.type === 'delivered').length, count);
    // The attempts the dead replica had started are redelivered under the same idempotency keys.
    assert.ok(receiver.heldKeys.length > 0, 'the dead replica had deliveries in flight');
    for (const key of receiver.heldKeys) assert.equal(receiver.delivered.get(key), 1, `delivery ${key} once`);
    // Acknowledged (an ack may be sent without waiting): nothing is left for a third replica.
    await waitFor('the outbox to be empty', async () => (await options.remaining()) === 0, 10_000);
  } finally {
    if (child) await killHard(child);
    await receiver.close();
  }
}

/** The part of a server's `handle` answer the scenarios read. */
type Handled = { kind: string; result?: unknown; events?: AsyncIterable<{ data: { statusUpdate?: StatusUpdate } }> };
type StatusUpdate = { status: { state: string; message?: { parts: unknown[] } } };
type TaskKey = { tenant: string; taskId: string };

export interface ReplicaKillOptions {
  label: string;
  /** The child replica: serves one skill that works until canceled; reports `{ url }` over IPC once listening. */
  fixture: URL;
  env: Record<string, string>;
  /** A replica in this process on the same store and bus. */
  survivor: {
    server: { handle(request: { method: string; params: unknown; version: string }): Promise<Handled> };
    /** Whether the task's first artifact is in the event log (the child started it). */
    started(key: TaskKey): Promise<boolean>;
    /** The task's `TASK_STATE_FAILED` events in the log. */
    failedEvents(key: TaskKey): Promise<unknown[]>;
  };
  /** Waits for what the store records of a running task beyond its events (a runner row, say). */
  afterStart?(key: TaskKey): Promise<void>;
  /** Bound on the wait for the final event after the kill. */
  failWithinMs: number;
}

/**
 * A replica child process SIGKILLed mid-task: the survivor ends the task FAILED with a
 * `REPLICA_LOST` ErrorInfo, its subscriber gets that final event, GetTask says FAILED and the log
 * holds one FAILED event. Resolves the task's key and what the child reported, for the store's own checks.
 */
export async function replicaKillScenario<M extends { url: string }>(options: ReplicaKillOptions): Promise<{ key: TaskKey; ready: M }> {
  const { survivor } = options;
  const { child, message: ready } = await forkFixture<M>(options.fixture, options.env);
  try {
    const sent = await sendMessage(`${ready.url}/a2a/jsonrpc`, 'work', { returnImmediately: true });
    const key = { tenant: '', taskId: (sent.result as { task: { id: string } }).task.id };
    await waitFor('the task to start on the child', () => survivor.started(key));
    await options.afterStart?.(key);
    // A client follows the task on the surviving replica.
    const stream = await survivor.server.handle({ method: 'SubscribeToTask', params: { id: key.taskId }, version: '1.0' });
    if (stream.kind !== 'stream' || stream.events === undefined) throw new Error('expected a stream');
    const events = readAll(stream.events);

    const killedAt = performance.now();
    await killHard(child);
    const received = await Promise.race([events, sleep(options.failWithinMs).then(() => undefined)]);
    const elapsed = performance.now() - killedAt;
    assert.ok(received !== undefined, 'the subscriber stream ended');
    const last = received.at(-1)?.data.statusUpdate;
    assert.equal(last?.status.state, 'TASK_STATE_FAILED');
    assert.deepEqual(last?.status.message?.parts[1], {
      data: { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'REPLICA_LOST', domain: 'a2aplane' },
    });
    const got = await survivor.server.handle({ method: 'GetTask', params: { id: key.taskId }, version: '1.0' });
    assert.equal(got.kind === 'result' && (got.result as { status: { state: string } }).status.state, 'TASK_STATE_FAILED');
    assert.equal((await survivor.failedEvents(key)).length, 1);
    console.info(`[orphans, ${options.label}] task ended FAILED ${Math.round(elapsed)} ms after SIGKILL`);
    return { key, ready };
  } finally {
    await killHard(child);
  }
}

/** An executor that counts its runs and holds each one live (WORKING) until `release`. */
export function countingExecutor() {
  const runs = { started: 0 };
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const executor = {
    async execute(context: { taskId: string; contextId: string }, events: { publish(event: object): void }): Promise<void> {
      runs.started += 1;
      events.publish({ id: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_WORKING' } });
      await held;
      events.publish({ taskId: context.taskId, contextId: context.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    },
  };
  return { runs, executor, release: () => release() };
}

/**
 * One live task, then `refusals` sends the store refuses past `limit` (a `maxTasks*` option): each
 * is answered `RATE_LIMITED` naming the limit (and `message`, when given), and no execution starts.
 */
export async function refusedSendsScenario(options: {
  /** The JSON-RPC URL of a server on the store, run by `counting.executor`. */
  url: string;
  counting: ReturnType<typeof countingExecutor>;
  limit: string;
  refusals: number;
  message?: RegExp;
}): Promise<void> {
  const { url, counting, limit } = options;
  assert.notEqual((await sendMessage(url, 'live', { returnImmediately: true })).result, undefined);
  assert.equal(counting.runs.started, 1);
  for (let i = 0; i < options.refusals; i++) {
    const refused = await sendMessage(url, `refused ${i}`);
    const error = JSON.stringify(refused.error);
    assert.ok(error?.includes('RATE_LIMITED') && error.includes(limit), `refused with ${limit}: ${error}`);
    if (options.message) assert.match(refused.error?.message ?? '', options.message);
  }
  // Let any execution that had been started in the background show up.
  await sleep(50);
  assert.equal(counting.runs.started, 1);
}

/**
 * What the push-outbox fixture of each store does: `count` status updates for ten tasks to
 * `receiverUrl` through `sender` (a push sender on the store's outbox), then waits until the outbox
 * holds them all (`stored()`).
 */
export async function sendPushBurst(
  sender: { notify(notification: { config: TaskPushNotificationConfig; payload: StreamResponse; taskId: string; tenant: string }): void },
  options: { count: number; receiverUrl: string; token?: string; stored(): Promise<number> },
): Promise<void> {
  for (let i = 0; i < options.count; i++) {
    const taskId = `task-${i % 10}`;
    sender.notify({
      config: { id: `cfg-${i % 10}`, url: options.receiverUrl, ...(options.token === undefined ? {} : { token: options.token }) },
      payload: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n: i } } },
      taskId,
      tenant: 'acme',
    });
  }
  while ((await options.stored()) < options.count) await sleep(5);
}
