import { createHmac } from 'node:crypto';
import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushSender, type PushDeliveryEvent, type PushSenderOptions, type WebhookSigner } from '../src/push/index.js';
import { type Receiver, type Reply, startReceiver } from './push-receiver.js';

const payload: StreamResponse = {
  statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } },
};

/** A stand-in HMAC-SHA256 signer with the a2a-identity WebhookSigner shape. */
function fakeHmacSigner(secret: string): WebhookSigner {
  return {
    algorithm: 'hmac-sha256',
    sign(body, { timestamp }) {
      const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
      return { 'x-test-timestamp': String(timestamp), 'x-test-signature': `sha256=${mac}` };
    },
  };
}

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function setup(replies: Reply[], extra: Partial<PushSenderOptions> = {}, fallback?: Reply) {
  receiver = await startReceiver(replies, fallback);
  const events: PushDeliveryEvent[] = [];
  const delays: number[] = [];
  const sender = createPushSender({
    ssrf: { allowLoopback: true, allowHttp: true },
    onEvent: (event) => events.push(event),
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5, // no jitter: delays are exact
    ...extra,
  });
  const config: TaskPushNotificationConfig = { id: 'cfg-1', taskId: 'task-1', url: receiver.url };
  return { receiver, sender, events, delays, config };
}

describe('push sender: delivery (spec §4.3.3, ADR-159 M4 push_signing)', () => {
  it('POSTs the StreamResponse as application/a2a+json with the config credentials and token', async () => {
    const { receiver, sender, events, config } = await setup([]);
    sender.notify({
      config: { ...config, token: 'tok-123', authentication: { scheme: 'Bearer', credentials: 'secret-cred' } },
      payload,
      taskId: 'task-1',
    });
    await sender.flush();
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/webhook');
    expect(JSON.parse(request?.body ?? '')).toEqual(payload);
    expect(request?.headers['content-type']).toBe('application/a2a+json');
    expect(request?.headers.authorization).toBe('Bearer secret-cred');
    expect(request?.headers['x-a2a-notification-token']).toBe('tok-123');
    expect(request?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(events).toEqual([
      {
        type: 'delivered',
        taskId: 'task-1',
        configId: 'cfg-1',
        attempts: 1,
        status: 200,
        deliveryId: request?.headers['idempotency-key'],
      },
    ]);
    // Events never carry secrets.
    expect(JSON.stringify(events)).not.toMatch(/secret-cred|tok-123/);
  });

  it('signs the exact body bytes; the receiver verifies the HMAC-SHA256 signature', async () => {
    const { receiver, sender, events, config } = await setup([], { signer: fakeHmacSigner('s3cret'), now: () => 1_700_000_000 });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    const request = receiver.requests[0];
    const expected = createHmac('sha256', 's3cret').update(`1700000000.${request?.body}`).digest('hex');
    expect(request?.headers['x-test-signature']).toBe(`sha256=${expected}`);
    expect(request?.headers['x-test-timestamp']).toBe('1700000000');
    expect(events[0]?.type).toBe('delivered');
  });

  it('reports a signer failure as failed without sending', async () => {
    const signer: WebhookSigner = {
      algorithm: 'broken',
      sign() {
        throw new Error('no key');
      },
    };
    const { receiver, sender, events, config } = await setup([], { signer });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(0);
    expect(events[0]).toMatchObject({ type: 'failed', reason: 'signing failed' });
  });

  it('can deliver through an injected fetch', async () => {
    const { receiver, sender, events, config } = await setup([], { fetch: globalThis.fetch });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'delivered', status: 200 });
  });
});

describe('push sender: retries (ADR-159 M4 push_retry / push_rejected)', () => {
  it('503, 503, 200 -> one successful delivery, same Idempotency-Key, two retrying events, exponential delays', async () => {
    const { receiver, sender, events, delays, config } = await setup([{ status: 503 }, { status: 503 }, { status: 200 }]);
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(3);
    const keys = new Set(receiver.requests.map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect(events.map((e) => e.type)).toEqual(['retrying', 'retrying', 'delivered']);
    expect(events.filter((e) => e.type === 'delivered')).toHaveLength(1);
    expect(events[2]).toMatchObject({ attempts: 3, status: 200 });
    expect(events[0]).toMatchObject({ type: 'retrying', attempt: 1, status: 503, delayMs: 200 });
    expect(delays).toEqual([200, 400]);
  });

  it('applies jitter within ±jitter of the exponential delay and caps at maxDelayMs', async () => {
    const replies: Reply[] = [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }];
    const { sender, delays, config } = await setup(replies, { random: () => 1, maxDelayMs: 700, maxAttempts: 5 });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    // random()=1 -> +20%: 240, 480, then the cap (700) + 20% = 840 twice.
    expect(delays).toEqual([240, 480, 840, 840]);
  });

  it('does not retry other 4xx and reports the failure', async () => {
    const { receiver, sender, events, config } = await setup([{ status: 400 }]);
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(1);
    expect(events).toEqual([expect.objectContaining({ type: 'failed', attempts: 1, status: 400 })]);
  });

  it('does not follow redirects', async () => {
    const { receiver, sender, events, config } = await setup([{ status: 302, headers: { location: 'http://169.254.169.254/' } }]);
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'failed', status: 302 });
  });

  it('retries 429 and honours Retry-After (capped by maxDelayMs)', async () => {
    const { receiver, sender, events, delays, config } = await setup([
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 429, headers: { 'retry-after': '3600' } },
      { status: 204 },
    ]);
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(3);
    expect(delays).toEqual([3000, 10_000]);
    expect(events.at(-1)).toMatchObject({ type: 'delivered', status: 204 });
  });

  it('gives up after maxAttempts and reports failed', async () => {
    const { receiver, sender, events, config } = await setup([], { maxAttempts: 3 }, { status: 502 });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(3);
    expect(events.map((e) => e.type)).toEqual(['retrying', 'retrying', 'failed']);
    expect(events[2]).toMatchObject({ attempts: 3, status: 502 });
  });

  it('retries after a timeout', async () => {
    const { receiver, sender, events, config } = await setup(['hold', { status: 200 }], { timeoutMs: 150 });
    sender.notify({ config, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: 'retrying', attempt: 1, error: 'timed out after 150 ms' });
    expect(events[1]).toMatchObject({ type: 'delivered', attempts: 2 });
  });

  it('retries network errors (connection refused) and then fails', async () => {
    receiver = await startReceiver();
    const deadUrl = receiver.url;
    await receiver.close();
    receiver = undefined;
    const events: PushDeliveryEvent[] = [];
    const sender = createPushSender({
      ssrf: { allowLoopback: true },
      maxAttempts: 2,
      sleep: async () => undefined,
      onEvent: (event) => events.push(event),
    });
    sender.notify({ config: { url: deadUrl }, payload, taskId: 'task-1' });
    await sender.flush();
    expect(events.map((e) => e.type)).toEqual(['retrying', 'failed']);
    expect(events[0]).toMatchObject({ error: 'ECONNREFUSED' });
  });
});

describe('push sender: SSRF (spec §13.2)', () => {
  it('refuses a loopback URL unless allowed, without sending anything', async () => {
    const { receiver, events, config } = await setup([]);
    const strict = createPushSender({ onEvent: (event) => events.push(event) });
    strict.notify({ config, payload, taskId: 'task-1' });
    await strict.flush();
    expect(receiver.requests).toHaveLength(0);
    expect(events).toEqual([
      expect.objectContaining({ type: 'refused', taskId: 'task-1', configId: 'cfg-1', reason: expect.stringContaining('loopback') }),
    ]);
  });

  it('checks again before every attempt (DNS may change) and connects only to vetted addresses', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    const { receiver, sender, events } = await setup([{ status: 503 }], {
      ssrf: { allowLoopback: true, allowHttp: true, resolve: async () => answers.shift() ?? [] },
    });
    // The host name only exists in the injected resolver: the connection must use its answer.
    sender.notify({ config: { url: `http://hooks.test:${receiver.port}/webhook` }, payload, taskId: 'task-1' });
    await sender.flush();
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.headers.host).toBe(`hooks.test:${receiver.port}`);
    expect(events.map((e) => e.type)).toEqual(['retrying', 'refused']);
    expect(events[1]).toMatchObject({ reason: 'private address 10.0.0.1 is not allowed' });
  });
});

describe('push sender: bounded concurrency and queue', () => {
  it('never runs more than maxConcurrency deliveries at once', async () => {
    const { receiver, sender, events, config } = await setup(['hold', 'hold', 'hold', 'hold', 'hold'], { maxConcurrency: 2 });
    for (let i = 0; i < 5; i++) sender.notify({ config, payload, taskId: `task-${i}` });
    const flushed = sender.flush();
    for (let round = 0; round < 50 && events.length < 5; round++) {
      await waitFor(() => receiver.held.length > 0 || events.length === 5);
      receiver.releaseAll();
    }
    await flushed;
    expect(receiver.requests).toHaveLength(5);
    expect(receiver.maxInFlight).toBe(2);
    expect(events.filter((e) => e.type === 'delivered')).toHaveLength(5);
  });

  it('never drops for a full queue: waiting notifications of a task are coalesced into its latest state, each reported', async () => {
    const { receiver, sender, events, config } = await setup(['hold'], { maxPendingPerTask: 2 });
    const working = (n: number): StreamResponse => ({
      statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } },
    });
    const task = (n: number, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED') => ({
      id: 'task-1',
      contextId: 'ctx-1',
      status: { state },
      metadata: { n },
    });
    // The first is in flight (held); 2..5 wait: past the cap of 2, they are folded into the newest.
    for (let n = 1; n <= 4; n++) sender.notify({ config, payload: working(n), taskId: 'task-1', task: task(n, 'TASK_STATE_WORKING') });
    sender.notify({ config, payload, taskId: 'task-1', task: task(5, 'TASK_STATE_COMPLETED') });
    await waitFor(() => receiver.held.length === 1);
    expect(sender.stats().pending).toBeLessThanOrEqual(2);
    receiver.releaseAll();
    await sender.flush();
    const bodies = receiver.requests.map((r) => JSON.parse(r.body) as StreamResponse);
    // The first as sent; 2 and 3 folded into 4, which carries the task's state as of 4; the final status last.
    expect(bodies).toEqual([working(1), { task: task(4, 'TASK_STATE_WORKING') }, payload]);
    const coalesced = events.filter((e) => e.type === 'coalesced');
    const delivered = events.filter((e) => e.type === 'delivered');
    // Every notification is accounted for: delivered, or coalesced into one that was.
    expect(coalesced.length + delivered.length).toBe(5);
    expect(coalesced.length).toBeGreaterThan(0);
    const deliveredIds = new Set(delivered.map((e) => e.deliveryId));
    for (const event of coalesced) expect(deliveredIds.has(event.type === 'coalesced' ? event.into : '')).toBe(true);
    expect(sender.stats()).toMatchObject({ pending: 0, inFlight: 0, delivered: delivered.length, coalesced: coalesced.length, dropped: 0 });
  });

  it('close() waits for deliveries in flight and drops later notifications', async () => {
    const { receiver, sender, events, config } = await setup([]);
    sender.notify({ config, payload, taskId: 'a' });
    await sender.close();
    sender.notify({ config, payload, taskId: 'b' });
    expect(receiver.requests).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['delivered', 'dropped']);
  });

  it('rejects bad options and inputs with RangeError / TypeError', () => {
    expect(() => createPushSender({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => createPushSender({ maxConcurrency: Number.NaN })).toThrow(RangeError);
    expect(() => createPushSender().notify({} as never)).toThrow(TypeError);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}
