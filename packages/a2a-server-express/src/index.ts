// The root entry, for Node: everything of `/core` (the framework-neutral core), plus the node:http
// binding (`createNodeHttpHandler`, `createA2ARequestHandler`), the auth helpers, the push sender and the
// rate limiter. A superset of `/core`, so no import of the core breaks (decision 0095).
export type { AgentEvent, AgentExecutor, EventSink, RequestContext, TaskContextLike } from './agent/executor.js';
export { createTaskUpdater, type TaskUpdater } from './agent/task-updater.js';
export {
  type CardSigner,
  type CreateAgentCardOptions,
  createAgentCard,
  type PreparedCard,
  prepareAgentCard,
} from './card/agent-card.js';
export { type CallerGoneHook, ON_CALLER_GONE } from './core/caller-gone.js';
export { createEventQueue, EventQueue, SlowConsumerError } from './core/event-queue.js';
export { activatedExtensions } from './core/extension-activation.js';
export { DEFAULT_INPUT_LIMITS, type InputLimits } from './core/input-limits.js';
export type { ExecutionObserver, ExecutionOutcome, ServerInstrumentation } from './core/instrumentation.js';
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
} from './core/server.js';
export type {
  AuthenticationRequest,
  Authenticator,
  Principal,
  PushSender,
  RateLimiter,
  RateLimitVerdict,
  StreamEvent,
  WebhookUrlCheck,
} from './core/types.js';
export type { CorsOptions } from './http/cors.js';
export type { HttpHandlerOptions } from './http/options.js';
export {
  type A2ANodeRequestHandler,
  createA2ARequestHandler,
  createNodeHttpHandler,
  DEFAULT_JWKS_PATH,
  type NodeHttpHandlerOptions,
} from './http/node-http.js';
export { formatSseEvent, type SseOptions, writeSse } from './sse/sse-writer.js';
export {
  createInMemoryTaskStore,
  InMemoryTaskStore,
  type InMemoryTaskStoreOptions,
  TaskStoreFullError,
} from './store/in-memory-task-store.js';
export { ReplicaLostError } from './bus/replica-lost-error.js';
export { decodeListPageToken, encodeListPageToken, taskStatusTime } from './store/list-page-token.js';
export {
  DEFAULT_STORE_MAX_TASKS,
  DEFAULT_STORE_MAX_BYTES,
  type OwnerShareLimits,
  type OwnerShareOptions,
  ownerShareMessage,
  resolveOwnerShares,
  type ShareLimit,
} from './store/owner-shares.js';
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
} from './store/task-store.js';
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
} from './bus/task-event-bus.js';
export {
  createInMemoryTaskEventBackend,
  createInMemoryTaskEventBus,
  type InMemoryTaskEventBackend,
  type InMemoryTaskEventBackendOptions,
  type InMemoryTaskEventBusOptions,
} from './bus/in-memory-task-event-bus.js';
export {
  type ApiKeyVerifier,
  type AuthContext,
  type AuthenticatorOptions,
  type AuthRequest,
  type BasicVerifier,
  type BearerVerifier,
  createAuthenticator,
  checkSkillScopes,
  type SkillScopeRule,
  createHttpSignatureAuthenticator,
  createIntrospectionVerifier,
  createJwtVerifier,
  createStaticApiKeyVerifier,
  DEFAULT_JWT_ALGORITHMS,
  type HttpSignatureAuthenticatorOptions,
  type IntrospectionVerifierOptions,
  type JwtVerifierOptions,
  type HttpSignatureRefusal,
  type HttpSignatureVerifierLike,
  nodeSignatureCrypto,
  type SignedRequestView,
  type TokenVerifier,
  timingSafeEqualString,
  verifyEd25519,
} from './auth/index.js';
export { createTokenBucketRateLimiter, type TokenBucketRateLimiterOptions } from './limits/index.js';
export {
  type AddressClass,
  checkWebhookUrl,
  createWebhookUrlGuard,
  classifyAddress,
  createInMemoryPushOutbox,
  createPushSender,
  IDEMPOTENCY_KEY_HEADER,
  type InMemoryPushOutboxOptions,
  PUSH_NOTIFICATION_TOKEN_HEADER,
  pushConfigSecret,
  type PushDeliveryEvent,
  type PushNotifyInput,
  type PushOutbox,
  type PushOutboxEntry,
  type PushOutboxLease,
  type PushSenderOptions,
  type PushSenderStats,
  type WebhookSigner,
  type WebhookSignerForConfig,
  type WebhookUrlCheckResult,
  type WebhookUrlOptions,
} from './push/index.js';
