import { formatFieldPath } from '@a2aplane/a2a-types';
import * as z from 'zod';
import { AGENT_ID_PATTERN, type AgentTier, CALL_RULE_CALLER_PATTERN, type CallRule } from './authorization.js';
import type { GlobalBudgetOptions, TimerFunctions } from './budget-ledger.js';
import { ConfigError, type ConfigViolation } from './config-error.js';
import type { RecursionPolicyOptions } from './recursion-policy.js';
import type { TaskPolicy, TaskPolicyEngineOptions } from './task-policy.js';

export { ConfigError, type ConfigViolation } from './config-error.js';

export type ConfigFormat = 'json' | 'yaml' | 'toml';

const nonNegative = () => z.number().min(0);
const nonNegativeInt = () => z.number().int().min(0);

const SelectorListSchema = z.union([z.string().min(1), z.array(z.string().min(1))]);

/** `[routing]`: the selector chain. Selector names must be registered in code (checked by materializeConfig). */
export const RoutingConfigSchema = z.strictObject({
  default_selector: z.string().min(1).optional(),
  fallback: SelectorListSchema.optional(),
  latency_budget_ms: z.number().positive().optional(),
  round_robin_seed: z.number().int().optional(),
});

export const GlobalBudgetConfigSchema = z.strictObject({
  max_usd_per_minute: nonNegative().optional(),
  max_tokens_per_minute: nonNegativeInt().optional(),
  max_tasks_per_minute: nonNegativeInt().optional(),
  overflow: z.enum(['shed', 'queue']).optional(),
  max_queue_depth: nonNegativeInt().optional(),
  window_ms: z.number().int().positive().optional(),
});

export const BudgetConfigSchema = z.strictObject({
  global: GlobalBudgetConfigSchema.optional(),
});

export const TaskPolicyConfigSchema = z.strictObject({
  max_tokens: nonNegativeInt().optional(),
  max_cost_usd: nonNegative().optional(),
  max_duration_ms: nonNegativeInt().optional(),
  allowed_skills: z.array(z.string().min(1)).optional(),
  max_concurrency: nonNegativeInt().optional(),
});

export const PolicyConfigSchema = z.strictObject({
  default: TaskPolicyConfigSchema.optional(),
  callers: z.record(z.string().min(1), TaskPolicyConfigSchema).optional(),
});

/**
 * `[cost]`: the operator's cost estimate of a task before it runs, in USD: per skill id, else
 * `default_usd`. The Governor reserves it against `budget.global.max_usd_per_minute` and checks it
 * against `policy.*.max_cost_usd` before dispatch.
 */
export const CostConfigSchema = z.strictObject({
  default_usd: nonNegative().optional(),
  skills: z.record(z.string().min(1), nonNegative()).optional(),
});

export const RecursionConfigSchema = z.strictObject({
  max_call_depth: nonNegativeInt().optional(),
  deny_revisit: z.boolean().optional(),
  revisit_allowlist: z.array(z.string().min(1)).optional(),
});

const AgentIdSchema = z.string().regex(AGENT_ID_PATTERN, 'expected an AgentID (64 hex characters)');

/** One `[[trust.rules]]` entry: `caller` (an AgentID, `tier:0`..`tier:3` or `*`) may call `skills` (`*`: every skill). */
export const TrustRuleConfigSchema = z.strictObject({
  caller: z.string().regex(CALL_RULE_CALLER_PATTERN, 'expected an AgentID, "tier:0".."tier:3" or "*"'),
  skills: z.array(z.string().min(1)).min(1),
});

/**
 * `[trust]`: who may call this agent (ADR-159 r2 open question 2, option (a)). Absent: allow-all,
 * logged. `allowlist` set: only those verified AgentIDs. `rules` set: each caller only the skills
 * a rule of its AgentID, its tier (from `tiers`) or `*` names.
 */
export const TrustConfigSchema = z.strictObject({
  allowlist: z.array(AgentIdSchema).optional(),
  tiers: z.record(AgentIdSchema, z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)])).optional(),
  rules: z.array(TrustRuleConfigSchema).optional(),
});

/** One `[[scopes.rules]]` entry: a call to one of `skills` (`*`: every skill) needs every scope of `scopes`. */
export const ScopeRuleConfigSchema = z.strictObject({
  skills: z.array(z.string().min(1)).min(1),
  scopes: z
    .array(
      z
        .string()
        .min(1)
        .regex(/^[!#-[\]-~]+$/, 'expected an OAuth scope token (RFC 6749 §3.3)'),
    )
    .min(1),
});

/**
 * `[scopes]`: OAuth scopes per skill, checked beside the card's per-skill `securityRequirements`.
 * Every rule naming the skill (or `*`) must be met; a caller without them is refused `FORBIDDEN`
 * (an anonymous one `UNAUTHENTICATED`).
 */
export const ScopesConfigSchema = z.strictObject({
  rules: z.array(ScopeRuleConfigSchema).optional(),
});

/**
 * The operator config of ADR-159 r3 (TOML / YAML / JSON), with the ADR's snake_case keys. Every
 * block and key is optional; unknown keys are violations (a typo must not silently do nothing).
 * Defaults are applied by `materializeConfig`, not here, so that merging keeps "unset" apart
 * from "set to the default".
 */
export const OperatorConfigSchema = z.strictObject({
  routing: RoutingConfigSchema.optional(),
  budget: BudgetConfigSchema.optional(),
  policy: PolicyConfigSchema.optional(),
  recursion: RecursionConfigSchema.optional(),
  cost: CostConfigSchema.optional(),
  trust: TrustConfigSchema.optional(),
  scopes: ScopesConfigSchema.optional(),
});
export type OperatorConfig = z.infer<typeof OperatorConfigSchema>;

/** Queue depth used when `overflow = "queue"` and `max_queue_depth` is not set. */
export const DEFAULT_MAX_QUEUE_DEPTH = 100;

export type OperatorConfigResult = { ok: true; config: OperatorConfig } | { ok: false; violations: ConfigViolation[] };

/**
 * Checks an already parsed operator config (for JSON, `JSON.parse(text)`) against
 * `OperatorConfigSchema`. Never throws: schema errors become violations. `null` or `undefined` is
 * an empty config. YAML and TOML text: `parseOperatorConfig` from `@a2aplane/a2a-governance/config-files`.
 */
export function validateOperatorConfig(value: unknown): OperatorConfigResult {
  const parsed = OperatorConfigSchema.safeParse(value ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      violations: parsed.error.issues.map((issue) => ({ field: formatFieldPath(issue.path), description: issue.message })),
    };
  }
  return { ok: true, config: parsed.data };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; arrays and scalars from `over` replace those of `under`. */
function deepMerge(under: unknown, over: unknown): unknown {
  if (over === undefined) return under;
  if (!isPlainObject(under) || !isPlainObject(over)) return over;
  const out: Record<string, unknown> = { ...under };
  for (const [key, value] of Object.entries(over)) out[key] = deepMerge(under[key], value);
  return out;
}

/**
 * Merges the in-code defaults with the file. Operators win by default (ADR-159 r3: "config wins
 * when both are present"); with `configOverrideAllowed: false` code wins and the file only fills
 * keys the code left unset. Objects merge key by key, arrays are replaced whole.
 */
export function mergeOperatorConfig(
  defaults: OperatorConfig,
  fromFile: OperatorConfig,
  options: { configOverrideAllowed?: boolean } = {},
): OperatorConfig {
  const fileWins = options.configOverrideAllowed ?? true;
  return (fileWins ? deepMerge(defaults, fromFile) : deepMerge(fromFile, defaults)) as OperatorConfig;
}

/** A call to one of `skills` (`*`: every skill) needs every scope of `scopes`; structurally a2a-server-express's `SkillScopeRule`. */
export interface ScopeRule {
  skills: string[];
  scopes: string[];
}

export interface MaterializedRouting {
  defaultSelector: string;
  /** Selectors tried in order after the default one (a ChainedSelector). */
  fallback: string[];
  latencyBudgetMs?: number;
  roundRobinSeed?: number;
}

/**
 * The `[trust]` block: options for `createCallAuthorizer` except the identity resolver, which the
 * host makes (`createAllowlistIdentityResolver(allowlist)` of a2a-identity when `allowlist` is set,
 * else allow-all with an info log). AgentIDs are lower-cased.
 */
export interface MaterializedTrust {
  allowlist?: string[];
  tiers?: Record<string, AgentTier>;
  rules?: CallRule[];
}

export interface MaterializedConfig {
  budget?: GlobalBudgetOptions;
  /** Present only when the file has a `[trust]` block; absent means allow-all. */
  trust?: MaterializedTrust;
  policy: TaskPolicyEngineOptions;
  recursion: RecursionPolicyOptions;
  routing?: MaterializedRouting;
  /**
   * From `[[scopes.rules]]`: pass it as `skillScopeRules` of a2a-server-express's `createA2AServer`.
   * Absent when there are none.
   */
  scopeRules?: ScopeRule[];
  /** From the `cost` block: pass it as `GovernorOptions.estimateCost`. Absent when the block is. */
  estimateCost?: (input: { caller: string; skill: string }) => number | undefined;
}

/** The estimator of a `cost` block: the skill's entry, else `default_usd`, else unknown. */
export function costEstimator(block: z.infer<typeof CostConfigSchema>): (input: { caller: string; skill: string }) => number | undefined {
  const skills = new Map(Object.entries(block.skills ?? {}));
  const fallback = block.default_usd;
  return (input) => skills.get(input.skill) ?? fallback;
}

function toTaskPolicy(block: z.infer<typeof TaskPolicyConfigSchema>): TaskPolicy {
  const policy: TaskPolicy = {};
  if (block.max_tokens !== undefined) policy.maxTokens = block.max_tokens;
  if (block.max_cost_usd !== undefined) policy.maxCostUsd = block.max_cost_usd;
  if (block.max_duration_ms !== undefined) policy.maxDurationMs = block.max_duration_ms;
  if (block.allowed_skills !== undefined) policy.allowedSkills = [...block.allowed_skills];
  if (block.max_concurrency !== undefined) policy.maxConcurrency = block.max_concurrency;
  return policy;
}

/**
 * Turns a config into constructor options for `createInMemoryBudgetLedger`, `TaskPolicyEngine`,
 * `RecursionPolicy` and the routing layer. Throws `ConfigError` at startup when a selector name is
 * not in `knownSelectors` (operators get a loud failure, not a silent fallback) or when
 * `routing` has a fallback or budget but no `default_selector`.
 */
export function materializeConfig(
  config: OperatorConfig,
  options: { knownSelectors: readonly string[]; clock?: () => number; timers?: TimerFunctions },
): MaterializedConfig {
  if (!Array.isArray(options?.knownSelectors)) {
    throw new TypeError(`expected knownSelectors to be an array, got ${typeof options?.knownSelectors}`);
  }
  const violations: ConfigViolation[] = [];
  const known = new Set(options.knownSelectors);
  const knownList = options.knownSelectors.length > 0 ? options.knownSelectors.join(', ') : '(none registered)';
  const result: MaterializedConfig = { policy: {}, recursion: {} };

  const routing = config.routing;
  if (routing !== undefined && Object.keys(routing).length > 0) {
    const fallback =
      routing.fallback === undefined ? [] : typeof routing.fallback === 'string' ? [routing.fallback] : [...routing.fallback];
    if (routing.default_selector === undefined) {
      violations.push({ field: 'routing.default_selector', description: 'required when the routing block is present' });
    } else if (!known.has(routing.default_selector)) {
      violations.push({
        field: 'routing.default_selector',
        description: `unknown selector "${routing.default_selector}"; known: ${knownList}`,
      });
    }
    fallback.forEach((name, index) => {
      if (!known.has(name)) {
        const field = typeof routing.fallback === 'string' ? 'routing.fallback' : `routing.fallback[${index}]`;
        violations.push({ field, description: `unknown selector "${name}"; known: ${knownList}` });
      }
    });
    if (routing.default_selector !== undefined) {
      const materialized: MaterializedRouting = { defaultSelector: routing.default_selector, fallback };
      if (routing.latency_budget_ms !== undefined) materialized.latencyBudgetMs = routing.latency_budget_ms;
      if (routing.round_robin_seed !== undefined) materialized.roundRobinSeed = routing.round_robin_seed;
      result.routing = materialized;
    }
  }

  const global = config.budget?.global;
  if (global !== undefined) {
    const budget: GlobalBudgetOptions = {
      overflow:
        global.overflow === 'queue'
          ? { kind: 'queue', maxQueueDepth: global.max_queue_depth ?? DEFAULT_MAX_QUEUE_DEPTH }
          : { kind: 'shed' },
    };
    if (global.overflow !== 'queue' && global.max_queue_depth !== undefined) {
      violations.push({ field: 'budget.global.max_queue_depth', description: 'only meaningful with overflow = "queue"' });
    }
    if (global.max_usd_per_minute !== undefined) budget.maxUsdPerMinute = global.max_usd_per_minute;
    if (global.max_tokens_per_minute !== undefined) budget.maxTokensPerMinute = global.max_tokens_per_minute;
    if (global.max_tasks_per_minute !== undefined) budget.maxTasksPerMinute = global.max_tasks_per_minute;
    if (global.window_ms !== undefined) budget.windowMs = global.window_ms;
    if (options.clock) budget.clock = options.clock;
    if (options.timers) budget.timers = options.timers;
    result.budget = budget;
  }

  const policy = config.policy;
  if (policy?.default !== undefined) result.policy.default = toTaskPolicy(policy.default);
  if (policy?.callers !== undefined) {
    result.policy.perCaller = Object.fromEntries(Object.entries(policy.callers).map(([caller, block]) => [caller, toTaskPolicy(block)]));
  }
  if (options.clock) result.policy.clock = options.clock;
  if (options.timers) result.policy.timers = options.timers;

  const recursion = config.recursion;
  if (recursion?.max_call_depth !== undefined) result.recursion.maxCallDepth = recursion.max_call_depth;
  if (recursion?.deny_revisit !== undefined) result.recursion.denyRevisit = recursion.deny_revisit;
  if (recursion?.revisit_allowlist !== undefined) result.recursion.revisitAllowlist = [...recursion.revisit_allowlist];

  if (config.cost !== undefined) result.estimateCost = costEstimator(config.cost);

  const trust = config.trust;
  if (trust !== undefined) {
    const materialized: MaterializedTrust = {};
    if (trust.allowlist !== undefined) materialized.allowlist = trust.allowlist.map((id) => id.toLowerCase());
    if (trust.tiers !== undefined) {
      materialized.tiers = Object.fromEntries(Object.entries(trust.tiers).map(([id, tier]) => [id.toLowerCase(), tier as AgentTier]));
    }
    if (trust.rules !== undefined)
      materialized.rules = trust.rules.map((rule) => ({ caller: rule.caller.toLowerCase(), skills: [...rule.skills] }));
    result.trust = materialized;
  }

  const scopeRules = config.scopes?.rules;
  if (scopeRules !== undefined && scopeRules.length > 0) {
    result.scopeRules = scopeRules.map((rule) => ({ skills: [...rule.skills], scopes: [...rule.scopes] }));
  }

  if (violations.length > 0) throw new ConfigError(violations);
  return result;
}
