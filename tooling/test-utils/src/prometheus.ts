import { createRequire } from 'node:module';

/** One sample of a metric family, as parse-prometheus-text-format reads it (values stay strings). */
export interface PrometheusSample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

export interface PrometheusMetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: PrometheusSample[];
}

// The package ships no types and a CommonJS main: loaded here once, typed by the interfaces above.
const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => PrometheusMetricFamily[];

/** Parses a Prometheus text exposition (what a `/metrics` endpoint serves) with an independent parser. */
export function parsePrometheusText(text: string): PrometheusMetricFamily[] {
  return parse(text);
}
