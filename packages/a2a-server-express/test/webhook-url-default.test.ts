import { afterEach, describe, expect, it } from 'vitest';
import { createPushSender, createWebhookUrlGuard } from '../src/push/index.js';
import { echoExecutor, rpc, startServer, type TestServer, userMessage } from './helpers.js';

type Json = Record<string, unknown>;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function createConfig(url: string): Promise<{ result?: Json; error?: { code: number; message: string } }> {
  if (!server) throw new Error('no server');
  const sent = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
  const taskId = ((sent.body.result as Json).task as Json).id as string;
  const created = await rpc(server.url, 'CreateTaskPushNotificationConfig', { taskId, url, token: 't' });
  return created.body as { result?: Json; error?: { code: number; message: string } };
}

describe('push config URLs are vetted by default (spec §13.2)', () => {
  it.each([
    'http://169.254.169.254/latest',
    'https://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'https://10.0.0.7/hook',
    'ftp://hooks.example/x',
  ])('with no option, %s is refused when the config is created', async (url) => {
    server = await startServer({ executor: echoExecutor });
    const created = await createConfig(url);
    expect(created.error?.code).toBe(-32602);
    expect(created.error?.message).toMatch(/Webhook URL rejected/);
  });

  it("the push sender's own check is the default: a sender that allows loopback lets a loopback config be created", async () => {
    const pushSender = createPushSender({ ssrf: { allowLoopback: true } });
    server = await startServer({ executor: echoExecutor, pushSender });
    expect((await createConfig('http://127.0.0.1:9/hook')).result?.url).toBe('http://127.0.0.1:9/hook');
    expect((await createConfig('http://169.254.169.254/latest')).error?.code).toBe(-32602);
  });

  it('an explicit checkWebhookUrl wins over the sender', async () => {
    const pushSender = createPushSender({ ssrf: { allowLoopback: true } });
    server = await startServer({ executor: echoExecutor, pushSender, checkWebhookUrl: createWebhookUrlGuard() });
    expect((await createConfig('http://127.0.0.1:9/hook')).error?.code).toBe(-32602);
  });

  it('checkWebhookUrl: false turns the check off at create, by name', async () => {
    server = await startServer({ executor: echoExecutor, checkWebhookUrl: false });
    expect((await createConfig('http://127.0.0.1:9/hook')).result?.url).toBe('http://127.0.0.1:9/hook');
  });
});
