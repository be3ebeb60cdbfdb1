import { createWebhookVerifier } from '@a2aplane/a2a-identity';
import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryTaskStore } from '../src/index.js';
import { createPushSender, type PushDeliveryEvent, type PushSenderOptions } from '../src/push/index.js';
import { putTask } from './fixtures/put-task.js';
import { type Receiver, startReceiver } from './push-receiver.js';

/**
 * docs/identity.md, "Push notification defaults": one test per sentence. Signed by default with
 * HMAC keyed per config, `signer: false` to opt out; credentials never logged. (Redaction on
 * read-back over every binding: a2a-grpc/test/push-redaction.test.ts.)
 */
const payload: StreamResponse = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } };
const TOKEN = 'receiver-token-0123456789';
const CREDENTIALS = 'bearer-credential-abcdef';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  vi.restoreAllMocks();
});

async function deliver(config: Omit<TaskPushNotificationConfig, 'url'>, options: PushSenderOptions = {}, status = 200) {
  receiver = await startReceiver([], { status });
  const events: PushDeliveryEvent[] = [];
  const sender = createPushSender({
    ssrf: { allowLoopback: true, allowHttp: true },
    sleep: async () => undefined,
    maxAttempts: 2,
    onEvent: (event) => events.push(event),
    ...options,
  });
  sender.notify({ config: { ...config, url: receiver.url }, payload, taskId: 't' });
  await sender.flush();
  return { requests: receiver.requests, events };
}

const verify = (secret: string, request: { headers: Record<string, string | string[] | undefined>; body: string }) =>
  createWebhookVerifier({ hmacSecret: secret }).verify(request.headers, request.body);

describe('push notification defaults', () => {
  it('every delivery is signed hmac-sha256 by default, keyed with the config token (a2a-identity verifies it)', async () => {
    const { requests } = await deliver({ id: 'a', taskId: 't', token: TOKEN });
    const request = requests[0] as { headers: Record<string, string>; body: string };
    expect(request.headers['x-a2a-signature']).toMatch(/^alg=hmac-sha256,sig=/);
    expect(verify(TOKEN, request)).toMatchObject({ ok: true, algorithm: 'hmac-sha256' });
    // Keyed per config: another receiver's secret does not verify it.
    expect(verify('another-receivers-token', request)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('without a token the key is the authentication credentials', async () => {
    const { requests } = await deliver({ id: 'a', taskId: 't', authentication: { scheme: 'Bearer', credentials: CREDENTIALS } });
    expect(verify(CREDENTIALS, requests[0] as { headers: Record<string, string>; body: string })).toMatchObject({ ok: true });
  });

  it('a config with neither token nor credentials is delivered unsigned', async () => {
    const { requests } = await deliver({ id: 'a', taskId: 't' });
    expect(requests[0]?.headers['x-a2a-signature']).toBeUndefined();
  });

  it('signer: false is the explicit opt-out', async () => {
    const { requests } = await deliver({ id: 'a', taskId: 't', token: TOKEN }, { signer: false });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers['x-a2a-signature']).toBeUndefined();
    expect(requests[0]?.headers['x-a2a-notification-token']).toBe(TOKEN);
  });

  it('credentials are never logged: not in delivery events, not on the console, also when delivery fails', async () => {
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((name) =>
      vi.spyOn(console, name).mockImplementation(() => undefined),
    );
    const config = { id: 'a', taskId: 't', token: TOKEN, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } };
    const ok = await deliver(config);
    await receiver?.close();
    const failed = await deliver(config, {}, 500);
    expect(failed.events.some((e) => e.type === 'failed')).toBe(true);
    const logged = JSON.stringify([ok.events, failed.events, spies.map((spy) => spy.mock.calls)]);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(CREDENTIALS);
  });
});

describe('retention of push configs (InMemoryTaskStore)', () => {
  const task = (state: Task['status']['state']): Task => ({
    id: 't',
    contextId: 'c',
    status: { state, timestamp: '2026-01-01T00:00:00Z' },
  });

  it("the sweep removes a task's push configs (and their credentials) once the task ended longer ago than terminalTtlMs", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ terminalTtlMs: 1000, now: () => now });
    const key = { tenant: '', taskId: 't' };
    await putTask(store, { tenant: '', owner: 'a', task: task('TASK_STATE_WORKING'), updatedAt: 0 });
    await store.putPushConfig(key, { id: 'p', taskId: 't', url: 'https://hooks.example/x', token: TOKEN });
    const held = store.stats().bytes;
    await putTask(store, { tenant: '', owner: 'a', task: task('TASK_STATE_COMPLETED'), updatedAt: 10 });
    now = 500;
    store.sweep();
    expect(await store.listPushConfigs(key)).toHaveLength(1);
    now = 1011;
    store.sweep();
    expect(store.stats()).toMatchObject({ tasks: 0, bytes: 0 });
    expect(held).toBeGreaterThan(0);
    expect(await store.listPushConfigs(key)).toEqual([]);
  });

  it("a live task's push configs are never swept", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ terminalTtlMs: 1000, now: () => now });
    await putTask(store, { tenant: '', owner: 'a', task: task('TASK_STATE_WORKING'), updatedAt: 0 });
    await store.putPushConfig({ tenant: '', taskId: 't' }, { id: 'p', taskId: 't', url: 'https://hooks.example/x' });
    now = 10_000_000;
    store.sweep();
    expect(await store.listPushConfigs({ tenant: '', taskId: 't' })).toHaveLength(1);
  });
});
