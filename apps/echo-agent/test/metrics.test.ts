import { createA2AClient } from '@a2aplane/a2a-client';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoAgent, startEchoAgent } from '../src/index.js';
import { startWebhookReceiver } from './webhook-receiver.js';

describe('echo agent with metrics (Prometheus scrape endpoint)', () => {
  let agent: EchoAgent;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    agent = await startEchoAgent({ metrics: true });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
  });

  it('counts requests, finished tasks, streams and push deliveries at /metrics', async () => {
    expect(agent.metricsUrl).toBe(`${agent.url}/metrics`);
    const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
    await client.sendMessage({
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'count me' }] },
      configuration: { taskPushNotificationConfig: { url: receiver.url, token: 'secret-token' } },
    });
    for await (const _event of client.sendStreamingMessage({
      message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'stream me' }] },
    })) {
      // drain
    }
    let families = parsePrometheusTextFormat('');
    const value = (name: string, labels: Record<string, string> = {}): number | undefined => {
      const found = families
        .find((f) => f.name === name)
        ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
      return found === undefined ? undefined : Number(found.value);
    };
    for (let i = 0; i < 200; i++) {
      families = parsePrometheusTextFormat(await (await fetch(agent.metricsUrl as string)).text());
      if ((value('a2a_push_deliveries_total', { a2a_push_outcome: 'delivered' }) ?? 0) >= 1 && value('a2a_server_tasks_active') === 0)
        break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(value('a2a_server_requests_total', { rpc_method: 'SendMessage', a2a_outcome: 'ok' })).toBe(1);
    expect(value('a2a_server_requests_total', { rpc_method: 'SendStreamingMessage', a2a_outcome: 'ok' })).toBe(1);
    expect(value('a2a_server_tasks_finished_total', { a2a_task_state: 'TASK_STATE_COMPLETED' })).toBe(2);
    expect(value('a2a_server_streams_active', { rpc_method: 'SendStreamingMessage' })).toBe(0);
    expect(value('a2a_push_deliveries_total', { a2a_push_outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
  });
});
