import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushSender } from '../src/push/index.js';
import { type Receiver, startReceiver } from './push-receiver.js';

/** Push deliveries authenticate to the receiver with the config's `authentication` (spec §4.3.3 AuthenticationInfo). */

const payload: StreamResponse = {
  statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } },
};

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function deliver(
  authentication: TaskPushNotificationConfig['authentication'],
): Promise<Record<string, string | string[] | undefined>> {
  receiver = await startReceiver([]);
  const sender = createPushSender({ ssrf: { allowLoopback: true, allowHttp: true }, sleep: async () => undefined });
  const config: TaskPushNotificationConfig = {
    id: 'cfg-1',
    taskId: 'task-1',
    url: receiver.url,
    ...(authentication ? { authentication } : {}),
  };
  sender.notify({ config, payload, taskId: 'task-1' });
  await sender.flush();
  expect(receiver.requests).toHaveLength(1);
  return receiver.requests[0]?.headers ?? {};
}

describe('push authentication', () => {
  it('sends Basic credentials as the config gives them', async () => {
    const credentials = Buffer.from('receiver:s3cret').toString('base64');
    expect((await deliver({ scheme: 'Basic', credentials })).authorization).toBe(`Basic ${credentials}`);
  });

  it('sends a Bearer token', async () => {
    expect((await deliver({ scheme: 'Bearer', credentials: 'push-token' })).authorization).toBe('Bearer push-token');
  });

  it('sends no Authorization header without authentication', async () => {
    expect((await deliver(undefined)).authorization).toBeUndefined();
  });
});
