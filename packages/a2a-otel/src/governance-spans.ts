import { type Attributes, context, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_BUDGET_CAP,
  ATTR_BUDGET_LIMIT,
  ATTR_BUDGET_OBSERVED,
  ATTR_CALLER_ID,
  ATTR_COST_ESTIMATED_USD,
  ATTR_ERROR_TYPE,
  ATTR_GOVERNANCE_DECISION,
  ATTR_GOVERNANCE_DISPATCH_ID,
  ATTR_GOVERNANCE_REASON,
  ATTR_GOVERNANCE_STAGE,
  ATTR_LINEAGE_TRACE_ID,
  ATTR_SKILL_ID,
} from './attributes.js';
import type { ServerScope } from './server-scope.js';
import { createAttributeCache } from './shared.js';
import type { StageFinish, StageHooks, StageStart } from './types.js';

/** The open span of a dispatch's current stage (a governor runs a dispatch's stages one after another). */
interface OpenStage {
  readonly stage: string;
  readonly span: Span;
}

/** The governance hooks: a child span per stage, and refusals counted by stage and reason. */
export function createGovernanceHooks(scope: ServerScope): StageHooks {
  const { tracer, metrics: m, metered, traced, childMayRecord } = scope;
  const refusalLabels = createAttributeCache((stage, reason) => ({ [ATTR_GOVERNANCE_STAGE]: stage, [ATTR_GOVERNANCE_REASON]: reason }));
  /** Keyed by dispatch id: a governor runs one dispatch's stages one after another. */
  const stages = new Map<string, OpenStage>();
  return {
    // Refusals are counted by onStageFinish: with metrics on, every dispatch is heard.
    enabled: () => metered || traced(),
    onStageStart(stage: StageStart) {
      const active = context.active();
      if (!childMayRecord(active)) return;
      const attributes: Attributes = {
        [ATTR_GOVERNANCE_STAGE]: stage.stage,
        [ATTR_GOVERNANCE_DISPATCH_ID]: stage.dispatchId,
        [ATTR_CALLER_ID]: stage.caller,
        [ATTR_SKILL_ID]: stage.skill,
      };
      if (stage.traceId !== undefined) attributes[ATTR_LINEAGE_TRACE_ID] = stage.traceId;
      if (stage.estimatedCostUsd !== undefined) attributes[ATTR_COST_ESTIMATED_USD] = stage.estimatedCostUsd;
      const span = tracer.startSpan(
        `a2a.governance.${stage.stage}`,
        { kind: SpanKind.INTERNAL, startTime: stage.startTime, attributes },
        active,
      );
      // A span that records nothing needs no finish.
      if (span.isRecording()) stages.set(stage.dispatchId, { stage: stage.stage, span });
    },
    onStageFinish(stage: StageFinish) {
      if (metered && stage.decision === 'rejected') m.refusals.add(1, refusalLabels(stage.stage, stage.reason ?? 'unknown'));
      const open = stages.get(stage.dispatchId);
      if (open === undefined || open.stage !== stage.stage) return;
      stages.delete(stage.dispatchId);
      endStageSpan(open.span, stage);
    },
  };
}

/** A stage span's verdict: decision and reason, a refusal's details, an error status unless accepted. */
function endStageSpan(span: Span, stage: StageFinish): void {
  span.setAttribute(ATTR_GOVERNANCE_DECISION, stage.decision);
  if (stage.reason !== undefined) span.setAttribute(ATTR_GOVERNANCE_REASON, stage.reason);
  if (stage.decision === 'rejected') setRefusal(span, stage.stage, stage.error);
  if (stage.decision !== 'accepted') span.setStatus({ code: SpanStatusCode.ERROR, message: `${stage.decision}: ${stage.reason ?? ''}` });
  span.end(stage.endTime);
}

/**
 * What a refusal was: its A2A reason as `error.type` (the stage's `reason` is the detail: the
 * budget's limit, the policy's field), and for the budget where it stood, from the refusal's
 * `metadata` (`limit`, `observed`, `cap`: what governance's ledgers put there), so a trace shows
 * the spend against the budget.
 */
function setRefusal(span: Span, stage: string, error: unknown): void {
  if (typeof error !== 'object' || error === null) return;
  const { reason, metadata } = error as { reason?: unknown; metadata?: unknown };
  if (typeof reason === 'string') span.setAttribute(ATTR_ERROR_TYPE, reason);
  if (stage !== 'budget' || typeof metadata !== 'object' || metadata === null) return;
  const { limit, observed, cap } = metadata as Record<string, unknown>;
  const observedNumber = Number(observed);
  const capNumber = Number(cap);
  if (typeof limit !== 'string' || !Number.isFinite(observedNumber) || !Number.isFinite(capNumber)) return;
  span.setAttribute(ATTR_BUDGET_LIMIT, limit);
  span.setAttribute(ATTR_BUDGET_OBSERVED, observedNumber);
  span.setAttribute(ATTR_BUDGET_CAP, capNumber);
}
