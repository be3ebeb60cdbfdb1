export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitState,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from '@a2aplane/a2a-types';
export { type DispatchRequest, type DispatchResult, Dispatcher, type DispatcherOptions } from './dispatcher.js';
export {
  INCOMPATIBLE_PEER_ERROR_ENTRY,
  IncompatiblePeerError,
  NO_ELIGIBLE_PEER_ERROR_ENTRY,
  NoEligiblePeerError,
  UnknownSelectorError,
} from './errors.js';
export {
  type ExecutionInput,
  type ExecutionOutcome,
  type Executor,
  type MessageStreamSource,
  type RemoteExecutorFactory,
  type StreamingExecutorOptions,
  createLocalExecutor,
  createStreamingExecutor,
} from './executor.js';
export { type HealthCheckLoop, type HealthCheckLoopOptions, type HealthCheckTimers, createHealthCheckLoop } from './health-check.js';
export {
  type PeerCapability,
  type PeerNegotiation,
  type PeerNegotiator,
  type PeerSnapshot,
  type TaskSpec,
  cardQualifies,
  hasCapabilities,
} from './peer.js';
export { DEFAULT_EWMA_ALPHA, type PeerOutcome, PeerPool, type PeerPoolOptions, type PeerSeed } from './peer-pool.js';
export {
  type MaterializedRoutingConfig,
  type RoutingSelectorConfig,
  type SelectorFactory,
  SelectorRegistry,
  createDefaultSelectorRegistry,
  selectorFromConfig,
} from './selector-registry.js';
export { type PeerSelector, capabilityMatch, chainSelectors, cheapestUnderLatency, lowestLatency, roundRobin } from './selectors.js';
