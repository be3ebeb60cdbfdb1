// Minimal typings for the parts of autocannon 8 the benchmarks use (it ships none).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    sent: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Request templates; `setupRequest` may change each request before it is sent. */
    requests?: Array<{
      setupRequest?: (request: { body?: string } & Record<string, unknown>) => { body?: string } & Record<string, unknown>;
    }>;
    timeout?: number;
    verifyBody?: (body: string) => boolean;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    '2xx': number;
  }
  interface Instance extends PromiseLike<Result> {
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
