export { type LinkedSignal, linkAbortSignals, neverAbortedSignal } from './abort.js';
export {
  type AgentTier,
  type CallAuthorization,
  type CallAuthorizationInput,
  type CallAuthorizer,
  type CallAuthorizerOptions,
  type CallRule,
  type IdentityResolver,
  createCallAuthorizer,
} from './authorization.js';
export {
  type BudgetAcquireRequest,
  type BudgetLedger,
  type BudgetLimit,
  type BudgetOverflow,
  type BudgetSnapshot,
  type BudgetTicket,
  DEFAULT_BUDGET_WINDOW_MS,
  type GlobalBudgetOptions,
  type TimerFunctions,
  createInMemoryBudgetLedger,
} from './budget.js';
export {
  BudgetConfigSchema,
  ConfigError,
  CostConfigSchema,
  costEstimator,
  type ConfigFormat,
  type ConfigViolation,
  DEFAULT_MAX_QUEUE_DEPTH,
  GlobalBudgetConfigSchema,
  type MaterializedConfig,
  type MaterializedRouting,
  type MaterializedTrust,
  type OperatorConfig,
  type OperatorConfigResult,
  OperatorConfigSchema,
  PolicyConfigSchema,
  RecursionConfigSchema,
  RoutingConfigSchema,
  TaskPolicyConfigSchema,
  TrustConfigSchema,
  TrustRuleConfigSchema,
  materializeConfig,
  mergeOperatorConfig,
  validateOperatorConfig,
} from './config.js';
export {
  MAX_VISITED_AGENTS,
  TASK_CONTEXT_FIELD,
  type TaskContext,
  type TaskContextWire,
  TaskContextWireSchema,
  childContext,
  createRootContext,
  formatTraceparent,
  generateSpanId,
  generateTraceId,
  parseTraceparent,
  readTaskContext,
  taskContextFromWire,
  taskContextToWire,
  writeTaskContext,
} from './context.js';
export { type GovernanceEvent, type GovernanceEvents, type GovernanceStage, createGovernanceEvents } from './events.js';
export { type GovernedRoute, type GovernedTask, type GovernedTaskInput, Governor, type GovernorOptions } from './governor.js';
export type { GovernanceHooks, GovernanceStageFinish, GovernanceStageStart } from './hooks.js';
export { SpendAggregator, type SpendAggregatorOptions, type SpendTotals } from './lineage-ledger.js';
export { DEFAULT_MAX_CALL_DEPTH, type RecursionCheck, RecursionPolicy, type RecursionPolicyOptions } from './recursion-policy.js';
export {
  DEFAULT_MAX_CONCURRENCY,
  type PolicyAdmission,
  type PolicyAdmitResult,
  type PolicyField,
  type TaskPolicy,
  TaskPolicyEngine,
  type TaskPolicyEngineOptions,
} from './task-policy.js';
