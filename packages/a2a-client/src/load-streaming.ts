import { lazyLoad } from './lazy-load.js';

/**
 * The streaming code (streaming.ts: the stream loop with its resume, the event stream reader and the
 * SSE parser), loaded by the first stream: one of the client's lazy boundaries (decision 0090), so
 * that a bundler that splits chunks keeps it out of the initial download. A failed load is a
 * retryable `A2ATransportError`; the next stream loads again.
 */
export const loadStreaming = lazyLoad(() => import('./streaming.js'), 'streaming code');
