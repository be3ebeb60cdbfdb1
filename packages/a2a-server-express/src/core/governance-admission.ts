import { isTraceId, type SendMessageRequest } from '@a2aplane/a2a-types';
import type { TaskContextLike } from '../agent/executor.js';
import { checkScopes, compileSkillScopeRules } from '../auth/skill-scopes.js';
import type { Caller } from './caller.js';
import type { ServerContext } from './server-context.js';
import type { GovernanceOptions, GovernedTaskLike } from './server-types.js';

/** What a run is admitted with: its skill, governance's handle on it and the lineage it runs under. */
export interface RunAdmission {
  readonly skillId: string | undefined;
  readonly governed: GovernedTaskLike | undefined;
  readonly taskContext: TaskContextLike | undefined;
}

/**
 * The checks before anything runs: the skill the message asks for, the caller's OAuth scopes
 * against that skill's own security requirements and the operator's scope rules, then governance (lineage, budget, recursion and
 * policy), which keys on the verified AgentID when there is one.
 */
export function createRunAdmission(ctx: ServerContext) {
  const { options, card } = ctx;
  const { governance, instrumentation } = options;
  const scopeRules = compileSkillScopeRules(options.skillScopeRules);

  function chooseSkill(params: SendMessageRequest): string | undefined {
    const custom = options.resolveSkill?.(params);
    if (custom) return custom;
    const fromMetadata = params.message.metadata?.skillId;
    if (typeof fromMetadata === 'string' && fromMetadata !== '') return fromMetadata;
    return card.skills[0]?.id;
  }

  /**
   * `context`: lineage an in-process caller hands over; `signal`: its abort signal. Without
   * governance the admission is at hand (no promise, so an ungoverned run starts in the same tick).
   */
  function admitRun(
    params: SendMessageRequest,
    caller: Caller,
    context: TaskContextLike | undefined,
    signal: AbortSignal | undefined,
  ): RunAdmission | Promise<RunAdmission> {
    const skillId = chooseSkill(params);
    // OAuth scopes against the skill's own security requirements and the operator's rules, before governance counts the call.
    checkScopes(card, scopeRules, skillId, caller.principal);
    if (!governance) return { skillId, governed: undefined, taskContext: context };
    return admitGoverned(governance, params, caller, skillId, context, signal);
  }

  async function admitGoverned(
    governance: GovernanceOptions,
    params: SendMessageRequest,
    caller: Caller,
    skillId: string | undefined,
    context: TaskContextLike | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RunAdmission> {
    let taskContext = context;
    if (taskContext === undefined) {
      const read = governance.readTaskContext(params.message.metadata);
      if (!read.ok) throw read.error;
      taskContext = read.context;
    }
    const principal = caller.principal;
    const agentId = principal?.agentId;
    const input: Parameters<GovernanceOptions['admit']>[0] = {
      caller: agentId ?? principal?.id ?? 'anonymous',
      skill: skillId ?? 'default',
    };
    if (agentId !== undefined) input.callerAgentId = agentId;
    if (principal?.scopes !== undefined) input.callerScopes = principal.scopes;
    if (taskContext) {
      input.incoming = taskContext;
      // The sender names its delegating task there; the child context keeps it.
      if (taskContext.parentTaskId !== undefined) input.parentTaskId = taskContext.parentTaskId;
    } else if (instrumentation?.traceId) {
      const traceId = instrumentation.traceId();
      if (traceId !== undefined && isTraceId(traceId)) input.traceId = traceId;
    }
    if (signal) input.signal = signal;
    const governed = await governance.admit(input);
    return { skillId, governed, taskContext: governed.context };
  }

  return { admitRun };
}
