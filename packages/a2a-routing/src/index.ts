import { SelectorRegistry as SelectorRegistryClass } from './selector-registry.js';
import { PeerPool as PeerPoolClass } from './peer-pool.js';
import { Dispatcher as DispatcherClass } from './dispatcher.js';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  createCircuitBreaker,
  type CircuitState,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from '@a2aplane/a2a-types';
export { type DispatchRequest, type DispatchResult, createDispatcher, type DispatcherOptions } from './dispatcher.js';
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
export { DEFAULT_EWMA_ALPHA, type PeerOutcome, createPeerPool, type PeerPoolOptions, type PeerSeed } from './peer-pool.js';
export {
  type MaterializedRoutingConfig,
  type RoutingSelectorConfig,
  type SelectorFactory,
  createSelectorRegistry,
  createDefaultSelectorRegistry,
  selectorFromConfig,
} from './selector-registry.js';
export { type PeerSelector, capabilityMatch, chainSelectors, cheapestUnderLatency, lowestLatency, roundRobin } from './selectors.js';

/** The outbound dispatch pipeline. Made by `createDispatcher`. */
export type Dispatcher = DispatcherClass;
/** @deprecated use `createDispatcher`; the class stays for one minor release. */
export const Dispatcher: typeof DispatcherClass = DispatcherClass;

/** The pool of known peers and their health. Made by `createPeerPool`. */
export type PeerPool = PeerPoolClass;
/** @deprecated use `createPeerPool`; the class stays for one minor release. */
export const PeerPool: typeof PeerPoolClass = PeerPoolClass;

/** Named selector factories. Made by `createSelectorRegistry`. */
export type SelectorRegistry = SelectorRegistryClass;
/** @deprecated use `createSelectorRegistry`; the class stays for one minor release. */
export const SelectorRegistry: typeof SelectorRegistryClass = SelectorRegistryClass;
