// What the a2a-client's initial code uses from this package: small modules that import nothing at run
// time, built into the client (tsup `noExternal`, decision 0052). An application bundler that splits
// chunks follows every import of a module the page reaches, used or not: through the root barrel the
// error classes, which the client loads on demand, would be reached from the page too and downloaded
// up front; and modules shared with that on-demand chunk would make a second up-front file.
export { CircuitBreaker, type CircuitBreakerOptions } from './resilience/circuit-breaker.js';
export { type BackoffOptions, backoffDelay } from './resilience/backoff.js';
export { parseRetryAfter } from './resilience/retry-after.js';
export {
  A2A_EXTENSIONS_HEADER,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  LEGACY_WELL_KNOWN_AGENT_CARD_PATH,
  MEDIA_TYPE_EVENT_STREAM,
  MEDIA_TYPE_JSON,
  WELL_KNOWN_AGENT_CARD_PATH,
} from './constants.js';
export { createErrorBrand, type ErrorBrand, isA2AError } from './errors/brand.js';
export { createJsonRpcRequest, type JsonRpcResultOutcome, readJsonRpcResult } from './json-rpc-core.js';
export {
  INTERRUPTED_TASK_STATES,
  isInterruptedTaskState,
  isTerminalTaskState,
  TERMINAL_TASK_STATES,
} from './model/task-states.js';
