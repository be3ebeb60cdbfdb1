import { type Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_CALLER_AGENT_ID,
  ATTR_CALLER_ID,
  ATTR_CONTEXT_ID,
  ATTR_COST_USD,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION,
  ATTR_LINEAGE_DEPTH,
  ATTR_LINEAGE_PARENT_TASK_ID,
  ATTR_LINEAGE_ROOT_AGENT_ID,
  ATTR_LINEAGE_TRACE_ID,
  ATTR_LINEAGE_VISITED_AGENTS,
  ATTR_SKILL_ID,
  ATTR_TASK_ID,
  ATTR_TASK_STATE,
  ATTR_USAGE_TOKENS,
} from './attributes.js';
import type { ServerScope } from './server-scope.js';
import { createAttributeCache } from './shared.js';
import type { ExecutionContext, ExecutionEnd, ExecutionObserverLike } from './types.js';

/**
 * The executor observer: an `invoke_agent` span per run (outbound calls made inside it are its
 * children) and the task metrics; `undefined` when nothing records the run, so the core runs the
 * executor directly.
 */
export function createExecutionObserver(
  scope: ServerScope,
  agentId: string | undefined,
  agentName: string | undefined,
): (requestContext: ExecutionContext) => ExecutionObserverLike | undefined {
  const { tracer, metrics: m, metered, traced, childMayRecord } = scope;
  const executorSpanName = agentName ? `invoke_agent ${agentName}` : 'invoke_agent';
  const stateLabels = createAttributeCache((state) => ({ [ATTR_TASK_STATE]: state }));
  return (requestContext) => {
    // Nothing records this run: the core runs the executor as without instrumentation.
    if (!metered && !traced()) return undefined;
    const active = context.active();
    const span = childMayRecord(active)
      ? tracer.startSpan(
          executorSpanName,
          { kind: SpanKind.INTERNAL, attributes: executionAttributes(requestContext, agentId, agentName) },
          active,
        )
      : undefined;
    if (span === undefined && !metered) return undefined;
    if (metered) m.activeTasks.add(1);
    return {
      run(execute) {
        if (span === undefined) return execute();
        return context.with(trace.setSpan(context.active(), span), execute);
      },
      end(outcome: ExecutionEnd) {
        const state = outcome.task?.status.state ?? (outcome.message ? 'message' : 'none');
        const { tokens, usd } = outcome.usage;
        if (metered) {
          m.activeTasks.add(-1);
          m.tasksFinished.add(1, stateLabels(state));
          if (usd > 0) m.spentUsd.add(usd);
          if (tokens > 0) m.spentTokens.add(tokens);
        }
        if (span === undefined) return;
        if (span.isRecording()) {
          span.setAttribute(ATTR_TASK_STATE, state);
          span.setAttribute(ATTR_COST_USD, usd);
          span.setAttribute(ATTR_USAGE_TOKENS, tokens);
          if (outcome.error !== undefined) {
            span.setAttribute(ATTR_ERROR_TYPE, outcome.error instanceof Error ? outcome.error.name : 'error');
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'executor failed' });
          } else if (state === 'TASK_STATE_FAILED') {
            span.setStatus({ code: SpanStatusCode.ERROR, message: state });
          }
        }
        span.end();
      },
    };
  };
}

function executionAttributes(requestContext: ExecutionContext, agentId: string | undefined, agentName: string | undefined): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION]: 'invoke_agent',
    [ATTR_GEN_AI_CONVERSATION_ID]: requestContext.contextId,
    [ATTR_TASK_ID]: requestContext.taskId,
    [ATTR_CONTEXT_ID]: requestContext.contextId,
  };
  if (agentId !== undefined) attributes[ATTR_GEN_AI_AGENT_ID] = agentId;
  if (agentName !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (requestContext.skillId !== undefined) attributes[ATTR_SKILL_ID] = requestContext.skillId;
  const principal = requestContext.principal;
  if (principal !== undefined) attributes[ATTR_CALLER_ID] = principal.agentId ?? principal.id;
  if (principal?.agentId !== undefined) attributes[ATTR_CALLER_AGENT_ID] = principal.agentId;
  const lineage = requestContext.taskContext;
  if (lineage !== undefined) {
    attributes[ATTR_LINEAGE_TRACE_ID] = lineage.traceId;
    attributes[ATTR_LINEAGE_DEPTH] = lineage.depth;
    attributes[ATTR_LINEAGE_ROOT_AGENT_ID] = lineage.rootAgentId;
    // Not copied: attributes given at span start are the SDK's to copy (it does), and we never write to it.
    attributes[ATTR_LINEAGE_VISITED_AGENTS] = lineage.visitedAgents as string[];
    if (lineage.parentTaskId !== undefined) attributes[ATTR_LINEAGE_PARENT_TASK_ID] = lineage.parentTaskId;
  }
  return attributes;
}
