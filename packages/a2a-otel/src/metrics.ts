import type { Counter, Histogram, Meter, UpDownCounter } from '@opentelemetry/api';

/** Seconds-scale buckets for A2A calls: most answer in milliseconds, delegated tasks take seconds. */
export const DURATION_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The server's instruments (names in the docs' metrics table; Prometheus turns dots into underscores). */
export interface ServerMetrics {
  readonly requests: Counter;
  readonly duration: Histogram;
  readonly activeStreams: UpDownCounter;
  readonly activeTasks: UpDownCounter;
  readonly tasksFinished: Counter;
  readonly refusals: Counter;
  readonly spentUsd: Counter;
  readonly spentTokens: Counter;
  readonly pushDeliveries: Counter;
  readonly pushRetries: Counter;
}

export function createServerMetrics(meter: Meter): ServerMetrics {
  return {
    requests: meter.createCounter('a2a.server.requests', { description: 'A2A requests served, by method and outcome', unit: '{request}' }),
    duration: meter.createHistogram('rpc.server.call.duration', {
      description: 'Time to serve an A2A request (a stream: until it ends)',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    activeStreams: meter.createUpDownCounter('a2a.server.streams.active', { description: 'Open server streams', unit: '{stream}' }),
    activeTasks: meter.createUpDownCounter('a2a.server.tasks.active', { description: 'Executor runs in progress', unit: '{task}' }),
    tasksFinished: meter.createCounter('a2a.server.tasks.finished', {
      description: 'Executor runs ended, by the state they left the task in',
      unit: '{task}',
    }),
    refusals: meter.createCounter('a2a.governance.refusals', {
      description: 'Governance refusals, by stage and reason',
      unit: '{refusal}',
    }),
    spentUsd: meter.createCounter('a2a.budget.spent.usd', { description: 'USD reported by executors (sink.reportUsage)', unit: 'USD' }),
    spentTokens: meter.createCounter('a2a.budget.spent.tokens', {
      description: 'Tokens reported by executors (sink.reportUsage)',
      unit: '{token}',
    }),
    pushDeliveries: meter.createCounter('a2a.push.deliveries', { description: 'Push deliveries ended, by outcome', unit: '{delivery}' }),
    pushRetries: meter.createCounter('a2a.push.retries', { description: 'Push delivery attempts retried', unit: '{retry}' }),
  };
}

interface ClientMetrics {
  readonly requests: Counter;
  readonly duration: Histogram;
}

export function createClientMetrics(meter: Meter): ClientMetrics {
  return {
    requests: meter.createCounter('a2a.client.requests', { description: 'A2A calls made, by method and outcome', unit: '{request}' }),
    duration: meter.createHistogram('rpc.client.call.duration', {
      description: 'Time of an A2A call (a stream: until it ends)',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
  };
}
