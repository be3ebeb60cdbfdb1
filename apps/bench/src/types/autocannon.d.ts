// Minimal typings for the parts of autocannon 8 the benchmarks use (it ships none).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    /** Request templates; `setupRequest` may change each request before it is sent. */
    requests?: Array<{ setupRequest?: (request: { body?: string }) => { body?: string } }>;
    timeout?: number;
    verifyBody?: (body: string) => boolean;
  }
  interface Result {
    latency: { p50: number; p99: number };
    duration: number;
    errors: number;
    mismatches: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(options: Options): PromiseLike<Result>;
  export default autocannon;
}
