import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentExecutor, createTaskUpdater } from '../src/index.js';
import { createPushSender, type PushDeliveryEvent } from '../src/push/index.js';
import { rpc, startServer, type TestServer, userMessage } from './helpers.js';

/** What a receiver got: the body and its idempotency key, by request path. */
interface Hit {
  path: string;
  key: string;
  body: StreamResponse;
}

/**
 * A webhook receiver on 127.0.0.1:0 whose answer the test picks per request (`answer`), after
 * an optional delay (a slow receiver). Only requests answered 2xx count as delivered.
 */
async function startHook(answer: (hit: Hit, attempt: number) => number = () => 200, delayMs = 0) {
  const delivered: Hit[] = [];
  const attempts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hit: Hit = {
        path: req.url ?? '',
        key: String(req.headers['idempotency-key']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as StreamResponse,
      };
      const attempt = (attempts.get(hit.key) ?? 0) + 1;
      attempts.set(hit.key, attempt);
      const status = answer(hit, attempt);
      const reply = () => {
        if (status >= 200 && status < 300) delivered.push(hit);
        res.writeHead(status).end();
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    delivered,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Hook = Awaited<ReturnType<typeof startHook>>;

const hooks: Hook[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const hook of hooks.splice(0)) await hook.close();
});
async function hook(...args: Parameters<typeof startHook>): Promise<Hook> {
  const started = await startHook(...args);
  hooks.push(started);
  return started;
}

/** Polls `condition` until it holds or `timeoutMs` passed (a bound, not a speed assertion). */
async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

const stateOf = (body: StreamResponse): string | undefined => body.task?.status.state ?? body.statusUpdate?.status.state;
const stepOf = (body: StreamResponse): number => Number(body.statusUpdate?.metadata?.step ?? body.task?.metadata?.step ?? 0);

/** Publishes 13 events: the task, 11 numbered WORKING updates, COMPLETED. */
const thirteenEvents: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    for (let step = 1; step <= 11; step++) {
      events.publish({
        taskId: context.taskId,
        contextId: context.contextId,
        status: { state: 'TASK_STATE_WORKING' },
        metadata: { step },
      });
      // Another turn between events: the burst is spread like a real agent's.
      await new Promise((resolve) => setImmediate(resolve));
    }
    task.complete('done');
  },
};

describe('push bursts to real receivers on 127.0.0.1 (issue 31)', () => {
  it('40 tasks x 13 events to one healthy receiver: 520 of 520 delivered, in order per task, every task seen COMPLETED', async () => {
    const receiver = await hook();
    const events: PushDeliveryEvent[] = [];
    const server = await startServer({
      executor: thirteenEvents,
      pushSender: createPushSender({ ssrf: { allowLoopback: true }, onEvent: (event) => events.push(event) }),
    });
    servers.push(server);
    const sends = Array.from({ length: 40 }, (_, i) =>
      rpc(server.url, 'SendMessage', {
        message: userMessage(`task ${i}`),
        configuration: { taskPushNotificationConfig: { url: receiver.url(`/hook/${i}`) } },
      }),
    );
    for (const sent of await Promise.all(sends)) expect(sent.status).toBe(200);
    await waitFor(() => receiver.delivered.length >= 520, 30_000);
    expect(receiver.delivered).toHaveLength(520);
    expect(events.filter((e) => e.type !== 'delivered')).toEqual([]);
    for (let i = 0; i < 40; i++) {
      const bodies = receiver.delivered.filter((hit) => hit.path === `/hook/${i}`).map((hit) => hit.body);
      expect(bodies).toHaveLength(13);
      expect(bodies[0]?.task).toBeDefined();
      expect(bodies.slice(1, 12).map(stepOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(stateOf(bodies[12] as StreamResponse)).toBe('TASK_STATE_COMPLETED');
    }
  }, 60_000);

  it('1 task x 1,000 events to a receiver 10x slower than the producer: COMPLETED arrives, the rest delivered or coalesced, memory bounded', async () => {
    const receiver = await hook(() => 200, 10);
    const events: PushDeliveryEvent[] = [];
    const maxPendingPerTask = 50;
    const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true }, maxPendingPerTask, onEvent: (e) => events.push(e) });
    const config: TaskPushNotificationConfig = { id: 'cfg', url: receiver.url('/hook') };
    let highWater = 0;
    for (let step = 1; step <= 1000; step++) {
      const state = step === 1000 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
      const task: Task = { id: 't', contextId: 'c', status: { state }, metadata: { step } };
      sender.notify({
        config,
        taskId: 't',
        task,
        payload: { statusUpdate: { taskId: 't', contextId: 'c', status: { state }, metadata: { step } } },
      });
      highWater = Math.max(highWater, sender.stats().pending);
      // One event a millisecond: the receiver takes 10.
      if (step % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await sender.flush();
    const delivered = events.filter((e) => e.type === 'delivered').length;
    const coalesced = events.filter((e) => e.type === 'coalesced').length;
    console.log(
      `1 task x 1000 events, receiver 10 ms, producer ~1 ms: ${delivered} delivered, ${coalesced} coalesced, at most ${highWater} waiting`,
    );
    expect(delivered + coalesced).toBe(1000);
    expect(coalesced).toBeGreaterThan(0);
    expect(highWater).toBeLessThanOrEqual(maxPendingPerTask);
    expect(receiver.delivered).toHaveLength(delivered);
    expect(stateOf(receiver.delivered.at(-1)?.body as StreamResponse)).toBe('TASK_STATE_COMPLETED');
    // In order: the steps the receiver saw only go up.
    const steps = receiver.delivered.map((hit) => stepOf(hit.body));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  }, 60_000);

  it("a failing path on a shared origin: the other tenant's 6 of 6 arrive (goal: within 1 s)", async () => {
    const receiver = await hook((hit) => (hit.path === '/tenant-a' ? 500 : 200));
    const events: PushDeliveryEvent[] = [];
    // Short retries, so tenant A's deliveries fail for good (and open its breaker) within the test.
    const sender = createPushSender({
      ssrf: { allowLoopback: true, allowHttp: true },
      maxAttempts: 2,
      baseDelayMs: 10,
      onEvent: (e) => events.push(e),
    });
    // Tenant A's endpoint fails every attempt: 20 tasks, well past the breaker's threshold.
    for (let i = 0; i < 20; i++) {
      const payload: StreamResponse = { statusUpdate: { taskId: `a${i}`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } };
      sender.notify({ config: { id: `a${i}`, url: receiver.url('/tenant-a') }, payload, taskId: `a${i}`, tenant: 'a' });
    }
    await waitFor(() => events.filter((e) => e.type === 'failed').length >= 3, 5_000);
    expect(events.filter((e) => e.type === 'failed').length).toBeGreaterThanOrEqual(3);
    const other: TaskPushNotificationConfig = { id: 'b', url: receiver.url('/tenant-b') };
    for (let i = 0; i < 6; i++) {
      const payload: StreamResponse = { statusUpdate: { taskId: `b${i}`, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } };
      sender.notify({ config: other, payload, taskId: `b${i}`, tenant: 'b' });
    }
    const sentAt = performance.now();
    // A generous bound (a timeout, not a speed assertion): before, the origin's open breaker held them for 30 s.
    await waitFor(() => receiver.delivered.length >= 6, 5_000);
    console.log(
      `other tenant's 6 notifications beside a failing path with its breaker open: ${(performance.now() - sentAt).toFixed(1)} ms`,
    );
    expect(receiver.delivered.filter((hit) => hit.path === '/tenant-b')).toHaveLength(6);
    await sender.close();
  }, 30_000);

  it('default options: a receiver that answers 503, 503, then 200 to each notification gets all 120', async () => {
    const receiver = await hook((_hit, attempt) => (attempt <= 2 ? 503 : 200));
    const events: PushDeliveryEvent[] = [];
    const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true }, onEvent: (e) => events.push(e) });
    for (let task = 0; task < 40; task++) {
      const config: TaskPushNotificationConfig = { id: `cfg${task}`, url: receiver.url('/hook') };
      for (let step = 1; step <= 3; step++) {
        const payload: StreamResponse = {
          statusUpdate: { taskId: `t${task}`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { step } },
        };
        sender.notify({ config, payload, taskId: `t${task}` });
      }
    }
    await waitFor(() => receiver.delivered.length >= 120, 30_000);
    expect(receiver.delivered).toHaveLength(120);
    expect(events.filter((e) => e.type === 'failed')).toEqual([]);
    await sender.close();
  }, 60_000);
});
