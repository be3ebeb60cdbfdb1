import { describe, expect, it } from 'vitest';
import { createInMemoryPushOutbox, createPushSender, type PushDeliveryEvent } from '../src/index.js';
import { startReceiver } from './push-receiver.js';

describe('push sender with an outbox', () => {
  it('close() hands pending deliveries back to the outbox; another sender delivers them with the same idempotency keys', async () => {
    const first = await startReceiver(['hold'], { status: 200 });
    const outbox = createInMemoryPushOutbox();
    const events: PushDeliveryEvent[] = [];
    const ssrf = { allowLoopback: true, allowHttp: true };
    const closing = createPushSender({ outbox, outboxLeaseMs: 50, ssrf, maxConcurrency: 1, onEvent: (e) => events.push(e) });
    const config = { id: 'cfg', url: first.url };
    for (let n = 1; n <= 3; n++) {
      closing.notify({
        config,
        payload: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } },
        taskId: 't',
      });
    }
    for (let i = 0; i < 200 && first.held.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = closing.close();
    expect(events.filter((e) => e.type === 'dropped').map((e) => (e.type === 'dropped' ? e.reason : ''))).toEqual([
      'handed-over',
      'handed-over',
    ]);
    first.releaseAll();
    await closed;
    const survivor = createPushSender({ outbox, outboxLeaseMs: 50, ssrf, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 400 && first.requests.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await survivor.flush();
    await survivor.close();
    const keys = first.requests.map((r) => r.headers['idempotency-key']);
    const steps = first.requests.map((r) => (JSON.parse(r.body) as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n);
    expect(steps).toEqual([1, 2, 3]);
    expect(new Set(keys).size).toBe(3);
    const handedOver = events.filter((e) => e.type === 'dropped').map((e) => (e.type === 'dropped' ? e.deliveryId : ''));
    expect(keys.slice(1)).toEqual(handedOver);
    expect(await outbox.claim({ owner: 'third', leaseMs: 1 }, 10)).toEqual([]);
    await first.close();
  });

  it('an attempt in flight at close() that fails goes back to the outbox, not forgotten: another sender delivers it', async () => {
    const hook = await startReceiver(['hold']);
    const outbox = createInMemoryPushOutbox();
    const events: PushDeliveryEvent[] = [];
    const ssrf = { allowLoopback: true, allowHttp: true };
    const closing = createPushSender({ outbox, outboxLeaseMs: 50, ssrf, onEvent: (e) => events.push(e) });
    const payload = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' as const } } };
    closing.notify({ config: { id: 'cfg', url: hook.url }, payload, taskId: 't' });
    for (let i = 0; i < 200 && hook.held.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = closing.close();
    // The receiver fails the attempt that was in flight while the sender closed.
    hook.held.splice(0)[0]?.writeHead(503).end();
    await closed;
    expect(events.map((e) => (e.type === 'dropped' ? `dropped:${e.reason}` : e.type))).toEqual(['retrying', 'dropped:handed-over']);
    const survivor = createPushSender({ outbox, outboxLeaseMs: 50, ssrf });
    for (let i = 0; i < 400 && hook.requests.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await survivor.flush();
    await survivor.close();
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]?.headers['idempotency-key']).toBe(hook.requests[0]?.headers['idempotency-key']);
    await hook.close();
  });
});
