// The framework-neutral core: the server, its seams (task store, event bus) with their in-memory
// implementations, the card and the agent-side helpers. Loads no `node:` module, so it runs on every
// runtime the fetch binding does; the root entry adds the node:http binding and the Node-only helpers.
export type { AgentEvent, AgentExecutor, EventSink, RequestContext, TaskContextLike } from '../agent/executor.js';
export { createTaskUpdater, type TaskUpdater } from '../agent/task-updater.js';
export {
  type CardSigner,
  type CreateAgentCardOptions,
  createAgentCard,
  type PreparedCard,
  prepareAgentCard,
} from '../card/agent-card.js';
export { type CallerGoneHook, ON_CALLER_GONE } from './caller-gone.js';
export { createEventQueue, EventQueue, SlowConsumerError } from './event-queue.js';
export { DEFAULT_INPUT_LIMITS, type InputLimits } from './input-limits.js';
export type { ExecutionObserver, ExecutionOutcome, ServerInstrumentation } from './instrumentation.js';
export {
  type A2AServer,
  type A2AServerOptions,
  type CoreRequest,
  type CoreResponse,
  createA2AServer,
  type GovernanceOptions,
  type GovernedTaskLike,
  type InProcessStreamOptions,
  negotiateVersion,
  toA2AError,
} from './server.js';
export type {
  AuthenticationRequest,
  Authenticator,
  Principal,
  PushSender,
  RateLimiter,
  RateLimitVerdict,
  StreamEvent,
  WebhookUrlCheck,
} from './types.js';
export { formatSseEvent } from '../sse/sse-format.js';
export {
  createInMemoryTaskStore,
  InMemoryTaskStore,
  type InMemoryTaskStoreOptions,
  TaskStoreFullError,
} from '../store/in-memory-task-store.js';
export {
  type SendKey,
  type StoredPushConfig,
  type StoredTask,
  type TaskKey,
  type TaskListPage,
  type TaskListQuery,
  type TaskRecord,
  TaskRevisionConflictError,
  type TaskStore,
  type TaskWriteOptions,
} from '../store/task-store.js';
export type {
  OrphanedTaskHandler,
  TaskCancelHandler,
  TaskCancelRequest,
  TaskCommit,
  TaskCommitEvent,
  TaskCommitResult,
  TaskEventBus,
  TaskEventInput,
  TaskEventLog,
  TaskEventRecord,
  TaskSubscribeOptions,
  TaskSubscription,
} from '../bus/task-event-bus.js';
export {
  createInMemoryTaskEventBackend,
  createInMemoryTaskEventBus,
  type InMemoryTaskEventBackend,
  type InMemoryTaskEventBackendOptions,
  type InMemoryTaskEventBusOptions,
} from '../bus/in-memory-task-event-bus.js';
