import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushSender, type PushDeliveryEvent, type PushSenderOptions } from '../src/push/index.js';
import { type Receiver, startReceiver } from './push-receiver.js';

const status = (taskId: string, n: number): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } },
});

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function waitFor(condition: () => boolean, rounds = 400): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A sleep the test releases by hand: resolves when `release()` is called. */
function manualSleep(): { sleep: NonNullable<PushSenderOptions['sleep']>; pending: number[]; release(): void } {
  const waiting: { ms: number; resolve: () => void }[] = [];
  return {
    sleep: (ms) => new Promise<void>((resolve) => waiting.push({ ms, resolve })),
    get pending() {
      return waiting.map((w) => w.ms);
    },
    release() {
      for (const w of waiting.splice(0)) w.resolve();
    },
  };
}

describe('push isolation (issue 14: one slow webhook must not starve the others)', () => {
  it("a receiver that accepts and never answers does not delay another tenant's notifications", async () => {
    const slow = await receiver([], 'hold');
    const fast = await receiver();
    const events: PushDeliveryEvent[] = [];
    // Default limits and timeouts, as a server runs them.
    const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true }, onEvent: (event) => events.push(event) });
    const slowConfig: TaskPushNotificationConfig = { id: 'slow', url: slow.url };
    const fastConfig: TaskPushNotificationConfig = { id: 'fast', url: fast.url };
    // The slow tenant floods first: more deliveries than the whole server had slots before (16).
    for (let i = 0; i < 100; i++) sender.notify({ config: slowConfig, payload: status(`slow-${i}`, i), taskId: `slow-${i}` });
    await waitFor(() => slow.held.length >= 4);
    const started = performance.now();
    const latencies: number[] = [];
    for (let i = 0; i < 6; i++) {
      const sentAt = performance.now();
      sender.notify({ config: fastConfig, payload: status(`fast-${i}`, i), taskId: `fast-${i}` });
      await waitFor(() => fast.requests.length > i);
      latencies.push(performance.now() - sentAt);
    }
    const total = performance.now() - started;
    console.log(
      `other tenant's 6 notifications with a never-answering receiver alongside: delivered in ${total.toFixed(1)} ms ` +
        `(each ${latencies.map((ms) => ms.toFixed(1)).join(', ')} ms); the slow receiver holds ${slow.held.length} connections`,
    );
    expect(fast.requests).toHaveLength(6);
    // Everything for the other tenant arrived while the slow receiver still held its first requests
    // (none of them has timed out yet) and with no more than 4 connections open to it.
    expect(events.filter((e) => e.type !== 'delivered')).toEqual([]);
    expect(slow.maxInFlight).toBeLessThanOrEqual(4);
    slow.releaseAll();
  }, 30_000);

  it('a retry waits without holding a slot', async () => {
    const failing = await receiver([{ status: 503 }]);
    const other = await receiver();
    const sleeper = manualSleep();
    const sender = createPushSender({
      ssrf: { allowLoopback: true, allowHttp: true },
      maxConcurrency: 1,
      sleep: sleeper.sleep,
      random: () => 0.5,
    });
    sender.notify({ config: { id: 'a', url: failing.url }, payload: status('a', 1), taskId: 'a' });
    await waitFor(() => sleeper.pending.length === 1);
    // The only slot is free while the first delivery waits for its retry.
    sender.notify({ config: { id: 'b', url: other.url }, payload: status('b', 1), taskId: 'b' });
    await waitFor(() => other.requests.length === 1);
    expect(other.requests).toHaveLength(1);
    expect(failing.requests).toHaveLength(1);
    sleeper.release();
    await sender.flush();
    expect(failing.requests).toHaveLength(2);
  });

  it("delivers the notifications of one task in order: a later one waits for the earlier one's retries", async () => {
    // The first delivery's first attempt fails; the ones after it must not overtake it.
    const hook = await receiver([{ status: 503 }, { status: 503 }]);
    const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true }, sleep: async () => undefined, random: () => 0.5 });
    const config: TaskPushNotificationConfig = { id: 'cfg', url: hook.url };
    for (let n = 1; n <= 5; n++) sender.notify({ config, payload: status('task-1', n), taskId: 'task-1' });
    await sender.flush();
    const arrivals = hook.requests.map(
      (r) => (JSON.parse(r.body) as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n,
    );
    // Two failed attempts of 1, then 1 delivered, then 2..5: attempts arrive in task order.
    expect(arrivals).toEqual([1, 1, 1, 2, 3, 4, 5]);
  });

  it("opens a registration's breaker after deliveries in a row failed for good, then probes once after the cooldown", async () => {
    const dead = await receiver([], { status: 503 });
    const healthy = await receiver();
    const sleeper = manualSleep();
    let now = 0;
    const events: PushDeliveryEvent[] = [];
    const sender = createPushSender({
      ssrf: { allowLoopback: true, allowHttp: true },
      breakerThreshold: 3,
      breakerCooldownMs: 60_000,
      maxAttempts: 1,
      sleep: sleeper.sleep,
      clock: () => now,
      onEvent: (event) => events.push(event),
    });
    for (let i = 0; i < 3; i++) sender.notify({ config: { id: `d${i}`, url: dead.url }, payload: status(`d${i}`, i), taskId: `d${i}` });
    await waitFor(() => dead.requests.length === 3 && sleeper.pending.includes(60_000));
    expect(sleeper.pending).toEqual([60_000]);
    // Open: nothing more goes to the dead registration until the cooldown ends...
    sender.notify({ config: { id: 'd3', url: dead.url }, payload: status('d3', 3), taskId: 'd3' });
    sender.notify({ config: { id: 'd4', url: dead.url }, payload: status('d4', 4), taskId: 'd4' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dead.requests).toHaveLength(3);
    // ...while another registration is served at once.
    sender.notify({ config: { id: 'h', url: healthy.url }, payload: status('h', 1), taskId: 'h' });
    await waitFor(() => healthy.requests.length === 1);
    expect(healthy.requests).toHaveLength(1);
    // Cooldown over: exactly one probe, which fails and opens the breaker again; the other waits.
    now = 60_000;
    sleeper.release();
    await waitFor(() => dead.requests.length >= 4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dead.requests).toHaveLength(4);
    expect(sleeper.pending).toEqual([60_000]);
    expect(events.filter((e) => e.type === 'failed').map((e) => e.taskId)).toEqual(['d0', 'd1', 'd2', 'd3']);
  });
});

describe('push breaker cooldown', () => {
  it("a cooldown timer that fires before the breaker's clock says so looks again instead of stalling the registration", async () => {
    const hook = await receiver([{ status: 503 }]);
    const sleeper = manualSleep();
    let now = 0;
    const sender = createPushSender({
      ssrf: { allowLoopback: true, allowHttp: true },
      breakerThreshold: 1,
      breakerCooldownMs: 1_000,
      maxAttempts: 1,
      sleep: sleeper.sleep,
      clock: () => now,
    });
    sender.notify({ config: { id: 'a', url: hook.url }, payload: status('a', 1), taskId: 'a' });
    await waitFor(() => sleeper.pending.includes(1_000));
    sender.notify({ config: { id: 'b', url: hook.url }, payload: status('b', 1), taskId: 'b' });
    // The cooldown's timer fires while the breaker's clock still says open.
    sleeper.release();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(hook.requests).toHaveLength(1);
    now = 1_000;
    await waitFor(() => hook.requests.length === 2);
    expect(hook.requests).toHaveLength(2);
    await sender.close();
  });
});

describe('push sender close()', () => {
  it('is bounded: drops what was not attempted, ends waiting retries, waits only for attempts in flight', async () => {
    const held = await receiver([], 'hold');
    const failing = await receiver([], { status: 503 });
    const sleeper = manualSleep();
    const events: PushDeliveryEvent[] = [];
    const sender = createPushSender({
      ssrf: { allowLoopback: true, allowHttp: true },
      maxConcurrencyPerDestination: 1,
      sleep: sleeper.sleep,
      onEvent: (event) => events.push(event),
    });
    sender.notify({ config: { id: 'h', url: held.url }, payload: status('h', 1), taskId: 'h' });
    sender.notify({ config: { id: 'h', url: held.url }, payload: status('h', 2), taskId: 'h' });
    sender.notify({ config: { id: 'f', url: failing.url }, payload: status('f', 1), taskId: 'f' });
    await waitFor(() => held.held.length === 1 && sleeper.pending.length === 1);
    const closed = sender.close();
    expect(events.map((e) => `${e.type}:${e.taskId}`).sort()).toEqual(['dropped:h', 'failed:f', 'retrying:f'].sort());
    held.releaseAll();
    await closed;
    expect(events.filter((e) => e.type === 'delivered').map((e) => e.taskId)).toEqual(['h']);
    expect(held.requests).toHaveLength(1);
    expect(failing.requests).toHaveLength(1);
  });
});

describe('push isolation through the server', () => {
  it("a caller whose webhook never answers does not delay another caller's task notifications", async () => {
    const { startServer, rpc, userMessage } = await import('./helpers.js');
    const slow = await receiver([], 'hold');
    const fast = await receiver();
    const server = await startServer({
      executor: (await import('./helpers.js')).echoExecutor,
      pushSender: createPushSender({ ssrf: { allowLoopback: true } }),
    });
    try {
      // Caller A: 20 tasks, each pushing its 4 events to a receiver that never answers.
      for (let i = 0; i < 20; i++) {
        await rpc(server.url, 'SendMessage', {
          message: userMessage(`a${i}`),
          configuration: { taskPushNotificationConfig: { url: slow.url } },
        });
      }
      await waitFor(() => slow.held.length >= 4);
      // Caller B: one task, its events pushed to a healthy receiver.
      const started = performance.now();
      await rpc(server.url, 'SendMessage', { message: userMessage('b'), configuration: { taskPushNotificationConfig: { url: fast.url } } });
      await waitFor(() => fast.requests.length >= 4);
      const elapsed = performance.now() - started;
      console.log(
        `through the server: caller B's ${fast.requests.length} notifications arrived ${elapsed.toFixed(1)} ms after its SendMessage, with caller A's receiver holding ${slow.held.length} connections`,
      );
      expect(fast.requests).toHaveLength(4);
      const states = fast.requests.map(
        (r) => JSON.parse(r.body) as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } },
      );
      // In task order: the task first, the completion last.
      expect(states[0]?.task).toBeDefined();
      expect(states.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(slow.maxInFlight).toBeLessThanOrEqual(4);
    } finally {
      slow.releaseAll();
      await server.close();
    }
  }, 30_000);
});
