import { SpendAggregator as SpendAggregatorClass } from './lineage-ledger.js';
import { RecursionPolicy as RecursionPolicyClass } from './recursion-policy.js';
import { TaskPolicyEngine as TaskPolicyEngineClass } from './task-policy.js';
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
  type BudgetCapOptions,
  type BudgetLedger,
  type BudgetLimit,
  type BudgetOverflow,
  type BudgetSnapshot,
  type BudgetTicket,
  DEFAULT_BUDGET_WINDOW_MS,
  type GlobalBudgetOptions,
  type TimerFunctions,
} from './budget-ledger.js';
export { checkAmount as checkBudgetAmount } from './amounts.js';
export { retrySeconds as budgetRetrySeconds } from './budget-refusals.js';
export { NANO_PER_USD, type ResolvedBudgetOptions, resolveBudgetOptions, usdToNano } from './budget-options.js';
export { type BudgetQueue, type BudgetQueueDecision, type BudgetQueueOptions, createBudgetQueue } from './budget-queue.js';
export { createInMemoryBudgetLedger } from './in-memory-budget-ledger.js';
export { createInMemoryConcurrencySlots } from './concurrency-slots.js';
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
  type ScopeRule,
  ScopeRuleConfigSchema,
  ScopesConfigSchema,
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
export {
  type BudgetCut,
  type GovernedRoute,
  type GovernedTask,
  type GovernedTaskInput,
  createGovernor,
  Governor,
  type GovernorOptions,
} from './governor.js';
export { GovernorOptionsError } from './governor-options-error.js';
export type { GovernanceHooks, GovernanceStageFinish, GovernanceStageStart } from './hooks.js';
export { createSpendAggregator, type SpendAggregatorOptions, type SpendTotals } from './lineage-ledger.js';
export { DEFAULT_MAX_CALL_DEPTH, type RecursionCheck, createRecursionPolicy, type RecursionPolicyOptions } from './recursion-policy.js';
export {
  type ConcurrencySlots,
  DEFAULT_MAX_CONCURRENCY,
  type PolicyAdmission,
  type PolicyAdmitInput,
  type PolicyAdmitResult,
  type PolicyField,
  type SlotGrant,
  type SlotLease,
  type TaskPolicy,
  createTaskPolicyEngine,
  type TaskPolicyEngineOptions,
} from './task-policy.js';

/** Enforces `TaskPolicy` per caller. Made by `createTaskPolicyEngine`. */
export type TaskPolicyEngine = TaskPolicyEngineClass;
/** @deprecated use `createTaskPolicyEngine`; the class stays for one minor release. */
export const TaskPolicyEngine: typeof TaskPolicyEngineClass = TaskPolicyEngineClass;

/** The recursion guard over a `TaskContext`. Made by `createRecursionPolicy`. */
export type RecursionPolicy = RecursionPolicyClass;
/** @deprecated use `createRecursionPolicy`; the class stays for one minor release. */
export const RecursionPolicy: typeof RecursionPolicyClass = RecursionPolicyClass;

/** Spend by trace id and by root agent. Made by `createSpendAggregator`. */
export type SpendAggregator = SpendAggregatorClass;
/** @deprecated use `createSpendAggregator`; the class stays for one minor release. */
export const SpendAggregator: typeof SpendAggregatorClass = SpendAggregatorClass;
