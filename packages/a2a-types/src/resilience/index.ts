// The one resilience module (decision 0057): the breaker, backoff and Retry-After reading shared by the client,
// a2a-routing and the server's push sender.
export { type BackoffOptions, backoffDelay } from './backoff.js';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitState,
  createCircuitBreaker,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from './circuit-breaker.js';
export { parseRetryAfter } from './retry-after.js';
