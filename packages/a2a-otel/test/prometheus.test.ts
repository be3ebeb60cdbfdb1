import { type PrometheusMetricFamily, parsePrometheusText } from '@a2aplane/test-utils';
import { createA2AClient } from '@a2aplane/a2a-client';
import { createInMemoryBudgetLedger } from '@a2aplane/a2a-governance';
import { type AgentExecutor, createTaskUpdater, type PushDeliveryEvent } from '@a2aplane/a2a-server-express';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerInstrumentation } from '../src/index.js';
import { createPrometheusMetrics } from '../src/prometheus.js';
import { startAgent, type TestAgent, userMessage, waitFor } from './helpers.js';

type Families = PrometheusMetricFamily[];

/** The value of one sample of a family whose labels include `labels`; throws with the families when none matches. */
function sample(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (found === undefined) throw new Error(`no sample ${name} ${JSON.stringify(labels)} in ${families.map((f) => f.name).join(', ')}`);
  return Number(found.value ?? found.count);
}

const agents: TestAgent[] = [];
afterAll(async () => {
  for (const agent of agents) await agent.close();
});

describe('Prometheus scrape endpoint (exporter-prometheus, parsed with parse-prometheus-text-format)', () => {
  it('exposes requests by method and outcome, latency, tasks, streams, refusals, budget and push metrics', async () => {
    const prometheus = createPrometheusMetrics();
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 3, maxUsdPerMinute: 1, maxTokensPerMinute: 1000 });
    const otel = createServerInstrumentation({ agentId: 'agent-m', meterProvider: prometheus.meterProvider, budget });
    let release: (() => void) | undefined;
    const executor: AgentExecutor = {
      async execute(ctx, events) {
        const updater = createTaskUpdater(ctx, events);
        updater.submit();
        if (ctx.message.parts[0]?.text === 'hold') {
          updater.startWork('holding');
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        events.reportUsage({ tokens: 100, usd: 0.1 });
        updater.complete('done');
      },
    };
    const agent = await startAgent({ agentId: 'agent-m', executor, instrumentation: otel, budget, extra: prometheus.handle });
    agents.push(agent);
    const client = createA2AClient({ card: agent.card, allowInsecureLoopback: true, retry: { retries: 0 } });
    const scrape = async (): Promise<Families> => {
      const response = await fetch(`${agent.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      return parsePrometheusText(await response.text());
    };

    await client.sendMessage(userMessage('one'));
    await client.sendMessage(userMessage('two'));
    const stream = client.sendStreamingMessage(userMessage('hold'))[Symbol.asyncIterator]();
    await stream.next();
    await waitFor(() => release !== undefined, 'the held run');
    const during = await scrape();
    expect(sample(during, 'a2a_server_streams_active', { rpc_method: 'SendStreamingMessage' })).toBe(1);
    expect(sample(during, 'a2a_server_tasks_active')).toBe(1);
    release?.();
    while (!(await stream.next()).done) {
      // drain
    }
    await expect(client.sendMessage(userMessage('over budget'))).rejects.toThrow();
    await expect(client.getTask({ id: 'missing' })).rejects.toThrow();
    const retrying: PushDeliveryEvent = { type: 'retrying', attempt: 1, status: 503, delayMs: 10, taskId: 't', deliveryId: 'd' };
    const delivered: PushDeliveryEvent = { type: 'delivered', attempts: 2, status: 200, taskId: 't', deliveryId: 'd' };
    otel.onPushEvent(retrying);
    otel.onPushEvent(delivered);
    await waitFor(() => agent.server.stats().liveTasks === 0, 'the runs to end');

    const after = await scrape();
    expect(sample(after, 'a2a_server_requests_total', { rpc_method: 'SendMessage', a2a_outcome: 'ok' })).toBe(2);
    expect(sample(after, 'a2a_server_requests_total', { rpc_method: 'SendMessage', a2a_outcome: 'BUDGET_EXCEEDED' })).toBe(1);
    expect(sample(after, 'a2a_server_requests_total', { rpc_method: 'GetTask', a2a_outcome: 'TASK_NOT_FOUND' })).toBe(1);
    expect(sample(after, 'a2a_server_requests_total', { rpc_method: 'SendStreamingMessage', a2a_outcome: 'ok' })).toBe(1);
    const latency = after.find((f) => f.name === 'rpc_server_call_duration');
    expect(latency?.type).toBe('HISTOGRAM');
    // parse-prometheus-text-format folds a labelled histogram into one series (it expects _count last):
    // the family and its buckets are checked here, the per-label counts through a2a_server_requests_total.
    expect(Object.keys(latency?.metrics[0]?.buckets ?? {})).toContain('+Inf');
    expect(sample(after, 'a2a_server_tasks_finished_total', { a2a_task_state: 'TASK_STATE_COMPLETED' })).toBe(3);
    expect(sample(after, 'a2a_server_tasks_active')).toBe(0);
    expect(sample(after, 'a2a_server_streams_active', { rpc_method: 'SendStreamingMessage' })).toBe(0);
    expect(sample(after, 'a2a_governance_refusals_total', { a2a_governance_stage: 'budget', a2a_governance_reason: 'tasks' })).toBe(1);
    expect(sample(after, 'a2a_budget_spent_usd_total')).toBeCloseTo(0.3, 9);
    expect(sample(after, 'a2a_budget_spent_tokens_total')).toBe(300);
    expect(sample(after, 'a2a_budget_remaining', { a2a_budget_currency: 'tokens' })).toBe(700);
    expect(sample(after, 'a2a_budget_remaining', { a2a_budget_currency: 'usd' })).toBeCloseTo(0.7, 9);
    expect(sample(after, 'a2a_push_deliveries_total', { a2a_push_outcome: 'delivered' })).toBe(1);
    expect(sample(after, 'a2a_push_retries_total')).toBe(1);
    await prometheus.shutdown();
  });

  it('listen serves only its path, GET or HEAD, on loopback', async () => {
    const prometheus = createPrometheusMetrics({ path: '/scrape' });
    prometheus.meterProvider.getMeter('t').createCounter('probe').add(2);
    const endpoint = await prometheus.listen({ port: 0 });
    try {
      expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/scrape$/);
      const families = parsePrometheusText(await (await fetch(endpoint.url)).text());
      expect(sample(families, 'probe_total')).toBe(2);
      expect((await fetch(endpoint.url.replace('/scrape', '/other'))).status).toBe(404);
      expect((await fetch(endpoint.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await endpoint.close();
      await prometheus.shutdown();
    }
    expect(() => createPrometheusMetrics({ path: 'metrics' })).toThrow(TypeError);
  });
});
