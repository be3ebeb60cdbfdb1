import { ForbiddenError, UnauthenticatedError } from '@a2aplane/a2a-types';

/**
 * "Is this AgentID allowed?" (ADR-159 r2). Structurally the `IdentityResolver` of
 * `@a2aplane/a2a-identity`: pass its `createAllowlistIdentityResolver(ids)` or
 * `createAllowAllIdentityResolver({ onAllow })` (this package does not depend on the identity one).
 */
export interface IdentityResolver {
  isAllowed(agentId: string): boolean | Promise<boolean>;
}

/** The agent tiers of the operator config (L0 orchestrator .. L3 specialist). */
export type AgentTier = 0 | 1 | 2 | 3;

/**
 * "`caller` may call `skills`". `caller` is an AgentID, `tier:<0-3>` (every AgentID the config
 * puts in that tier) or `*` (every verified caller); `skills` may hold `*` (every skill).
 */
export interface CallRule {
  caller: string;
  skills: readonly string[];
}

export interface CallAuthorizerOptions {
  /** Which verified AgentIDs may call at all. */
  identity: IdentityResolver;
  /** When set, an allowed caller may call only the skills some rule of its AgentID or tier names. */
  rules?: readonly CallRule[];
  /** AgentID -> tier, for `tier:<n>` rules. */
  tiers?: Readonly<Record<string, AgentTier>>;
  /**
   * Refuse a caller without a verified AgentID with `UNAUTHENTICATED`. Default true. Set it to
   * false only for the allow-all default, so peers that do not sign (API key, bearer) keep working.
   */
  requireVerifiedCaller?: boolean;
}

export interface CallAuthorizationInput {
  /** The key governance uses for the caller (the verified AgentID, else the principal id). */
  caller: string;
  /** Set only when an authenticator verified that the caller holds this agent's key. */
  callerAgentId?: string;
  skill: string;
}

export type CallAuthorization = { allowed: true } | { allowed: false; error: ForbiddenError | UnauthenticatedError };

/** The `authorize` stage of a `Governor`: after authentication, before the budget. */
export interface CallAuthorizer {
  /** Synchronous when the identity resolver is; a rejection is a verdict, not a throw. */
  authorize(input: CallAuthorizationInput): CallAuthorization | Promise<CallAuthorization>;
}

const ALLOWED: CallAuthorization = Object.freeze({ allowed: true as const });
/** An AgentID: 64 hex characters (any case; compared lower-cased). */
export const AGENT_ID_PATTERN = /^[0-9a-fA-F]{64}$/;
/** The subject of a `CallRule`: an AgentID, `tier:0`..`tier:3` or `*`. */
export const CALL_RULE_CALLER_PATTERN = /^(\*|tier:[0-3]|[0-9a-fA-F]{64})$/;

function isAgentTier(value: unknown): value is AgentTier {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/** Skills per rule subject (`*`, an AgentID, or `tier:<n>`); `undefined` holds every skill. */
type SkillSet = ReadonlySet<string> | undefined;

function compileRules(rules: readonly CallRule[]): Map<string, SkillSet> {
  const compiled = new Map<string, SkillSet>();
  rules.forEach((rule, index) => {
    if (rule === null || typeof rule !== 'object')
      throw new TypeError(`expected rules[${index}] to be a { caller, skills } object, got ${rule === null ? 'null' : typeof rule}`);
    const caller = typeof rule.caller === 'string' ? rule.caller.toLowerCase() : rule.caller;
    if (typeof caller !== 'string' || !CALL_RULE_CALLER_PATTERN.test(caller)) {
      throw new TypeError(
        `expected rules[${index}].caller to be an AgentID, "tier:0".."tier:3" or "*", got ${JSON.stringify(rule.caller)}`,
      );
    }
    if (!Array.isArray(rule.skills) || rule.skills.some((skill) => typeof skill !== 'string' || skill === '')) {
      throw new TypeError(`expected rules[${index}].skills to be an array of skill ids, got ${JSON.stringify(rule.skills)}`);
    }
    const previous = compiled.get(caller);
    if (rule.skills.includes('*') || (compiled.has(caller) && previous === undefined)) compiled.set(caller, undefined);
    else compiled.set(caller, new Set([...(previous ?? []), ...rule.skills]));
  });
  return compiled;
}

/**
 * Call authorization of ADR-159 r2 (trust substrate option (a), a flat allowlist) plus per-skill
 * rules by AgentID or tier (the tier hierarchy of the seed design, scoped to skills). Order:
 * no verified AgentID -> `UNAUTHENTICATED` (unless `requireVerifiedCaller: false`); not allowed
 * by the identity resolver -> `FORBIDDEN`; rules set and none of the caller's AgentID, tier or
 * `*` names the skill -> `FORBIDDEN`.
 */
export function createCallAuthorizer(options: CallAuthorizerOptions): CallAuthorizer {
  if (typeof options?.identity?.isAllowed !== 'function') {
    throw new TypeError(`expected identity to be an IdentityResolver, got ${typeof options?.identity}`);
  }
  const { identity } = options;
  const requireVerified = options.requireVerifiedCaller ?? true;
  const tiers = new Map<string, AgentTier>();
  for (const [agentId, tier] of Object.entries(options.tiers ?? {})) {
    if (!AGENT_ID_PATTERN.test(agentId))
      throw new TypeError(`expected tiers keys to be AgentIDs (64 hex characters), got ${JSON.stringify(agentId)}`);
    if (!isAgentTier(tier)) throw new TypeError(`expected tiers.${agentId} to be 0, 1, 2 or 3, got ${JSON.stringify(tier)}`);
    tiers.set(agentId.toLowerCase(), tier);
  }
  if (options.rules !== undefined && !Array.isArray(options.rules))
    throw new TypeError(`expected rules to be an array, got ${typeof options.rules}`);
  const rules = options.rules === undefined ? undefined : compileRules(options.rules);

  const unauthenticated = (skill: string): CallAuthorization => ({
    allowed: false,
    error: new UnauthenticatedError({
      message: 'This agent serves verified callers only: sign the request with your agent key',
      metadata: { limit: 'unverified', skill },
    }),
  });
  const forbidden = (agentId: string, skill: string, limit: 'allowlist' | 'rules'): CallAuthorization => ({
    allowed: false,
    error: new ForbiddenError({
      message: limit === 'allowlist' ? `agent ${agentId} is not on the trust allowlist` : `agent ${agentId} may not call skill ${skill}`,
      metadata: { limit, agentId, skill },
    }),
  });
  // Per-call work is three map lookups: no array or string is built per request.
  const tierSubjects = new Map<string, string>();
  for (const [agentId, tier] of tiers) tierSubjects.set(agentId, `tier:${tier}`);
  const grants = (subject: string | undefined, skill: string): boolean => {
    if (subject === undefined || rules === undefined || !rules.has(subject)) return false;
    const skills = rules.get(subject);
    return skills === undefined || skills.has(skill);
  };
  const mayCall = (agentId: string, skill: string): boolean =>
    rules === undefined || grants('*', skill) || grants(agentId, skill) || grants(tierSubjects.get(agentId), skill);
  const decide = (agentId: string, skill: string, allowed: boolean): CallAuthorization => {
    if (!allowed) return forbidden(agentId, skill, 'allowlist');
    return mayCall(agentId, skill) ? ALLOWED : forbidden(agentId, skill, 'rules');
  };

  return {
    authorize(input) {
      const agentId = input.callerAgentId?.toLowerCase();
      if (agentId === undefined || agentId === '') {
        if (requireVerified || rules !== undefined) return unauthenticated(input.skill);
        return ALLOWED;
      }
      const allowed = identity.isAllowed(agentId);
      if (typeof allowed === 'boolean') return decide(agentId, input.skill, allowed);
      return Promise.resolve(allowed).then((value) => decide(agentId, input.skill, value === true));
    },
  };
}
