import {
  ATTR_BUDGET_CAP,
  ATTR_BUDGET_LIMIT,
  ATTR_BUDGET_OBSERVED,
  ATTR_COST_ESTIMATED_USD,
  ATTR_COST_USD,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GOVERNANCE_DECISION,
  ATTR_GOVERNANCE_DISPATCH_ID,
  ATTR_GOVERNANCE_REASON,
  ATTR_GOVERNANCE_STAGE,
  ATTR_LINEAGE_DEPTH,
  ATTR_OUTCOME,
  ATTR_RPC_METHOD,
  ATTR_TASK_ID,
  ATTR_TASK_STATE,
  ATTR_USAGE_TOKENS,
  RPC_SERVICE,
} from '../attributes.js';
import { childrenByParent, numberAttribute, SPAN_KIND_SERVER, stringAttribute, type TraceSpan } from './spans.js';

const GOVERNANCE_PREFIX = 'a2a.governance.';
const isGovernance = (span: TraceSpan): boolean => span.name.startsWith(GOVERNANCE_PREFIX);
const isExecutor = (span: TraceSpan): boolean => span.name === 'invoke_agent' || span.name.startsWith('invoke_agent ');

/** Where a budget refusal stood: `observed` of `cap` in the ledger's window, for the `limit` named (`usd`, `tokens`, ...). */
export interface BudgetStanding {
  limit: string;
  observed: number;
  cap: number;
}

/** One governance stage's verdict, from its `a2a.governance.<stage>` span. */
export interface GovernanceDecision {
  stage: string;
  decision: 'accepted' | 'rejected' | 'error' | 'unknown';
  /** The stage's detail: the budget's limit (`usd`, `tasks`), the policy's field, ... */
  reason?: string;
  /** The refusal's A2A reason (`BUDGET_EXCEEDED`, `RECURSION_LIMIT`, ...), from `error.type`. */
  errorType?: string;
  /** `inbound`: the agent's governor on a call it received; `outbound`: its dispatcher on a call it tried to make. */
  side: 'inbound' | 'outbound';
  dispatchId?: string;
  estimatedCostUsd?: number;
  budget?: BudgetStanding;
  spanId: string;
}

/**
 * One hop of a trace's delegation tree: a call an agent served (its SERVER span), or a call its
 * dispatcher refused before it left (`refused`, no server span).
 */
export interface DelegationHop {
  kind: 'served' | 'refused';
  spanId: string;
  agentId?: string;
  agentName?: string;
  method?: string;
  /** The lineage depth the agent's run carried (`a2a.lineage.depth`); else the depth in this tree. */
  depth: number;
  /** `completed` (or the task's state), `rejected` by governance, `failed`. */
  outcome: 'completed' | 'rejected' | 'failed' | 'running';
  /** The refusal's or failure's reason (`BUDGET_EXCEEDED`, `RECURSION_LIMIT`, ...). */
  reason?: string;
  /** The refusing stage and its detail (`budget`, `usd`), when governance refused. */
  refusedBy?: { stage: string; detail?: string };
  decisions: GovernanceDecision[];
  /** What the agent's run reported spending (`a2a.cost.usd`). */
  costUsd?: number;
  tokens?: number;
  taskId?: string;
  taskState?: string;
  startNs: bigint;
  endNs: bigint;
  children: DelegationHop[];
}

function decisionOf(span: TraceSpan, side: 'inbound' | 'outbound'): GovernanceDecision {
  const raw = stringAttribute(span, ATTR_GOVERNANCE_DECISION);
  const decision = raw === 'accepted' || raw === 'rejected' || raw === 'error' ? raw : 'unknown';
  const out: GovernanceDecision = {
    stage: stringAttribute(span, ATTR_GOVERNANCE_STAGE) ?? span.name.slice(GOVERNANCE_PREFIX.length),
    decision,
    side,
    spanId: span.spanId,
  };
  const reason = stringAttribute(span, ATTR_GOVERNANCE_REASON);
  if (reason !== undefined) out.reason = reason;
  const errorType = stringAttribute(span, ATTR_ERROR_TYPE);
  if (errorType !== undefined) out.errorType = errorType;
  const dispatchId = stringAttribute(span, ATTR_GOVERNANCE_DISPATCH_ID);
  if (dispatchId !== undefined) out.dispatchId = dispatchId;
  const estimate = numberAttribute(span, ATTR_COST_ESTIMATED_USD);
  if (estimate !== undefined) out.estimatedCostUsd = estimate;
  const limit = stringAttribute(span, ATTR_BUDGET_LIMIT);
  const observed = numberAttribute(span, ATTR_BUDGET_OBSERVED);
  const cap = numberAttribute(span, ATTR_BUDGET_CAP);
  if (limit !== undefined && observed !== undefined && cap !== undefined) out.budget = { limit, observed, cap };
  return out;
}

const refusalOf = (decisions: readonly GovernanceDecision[]): GovernanceDecision | undefined =>
  decisions.find((d) => d.decision === 'rejected' || d.decision === 'error');

interface Walk {
  children: Map<string | undefined, TraceSpan[]>;
}

/** A served hop: its server span, the spans below it up to the next server spans (its child hops). */
function servedHop(walk: Walk, server: TraceSpan, treeDepth: number): DelegationHop {
  const hop: DelegationHop = {
    kind: 'served',
    spanId: server.spanId,
    depth: treeDepth,
    outcome: 'completed',
    decisions: [],
    startNs: server.startNs,
    endNs: server.endNs,
    children: [],
  };
  const agentId = stringAttribute(server, ATTR_GEN_AI_AGENT_ID);
  const agentName = stringAttribute(server, ATTR_GEN_AI_AGENT_NAME);
  if (agentId !== undefined) hop.agentId = agentId;
  if (agentName !== undefined) hop.agentName = agentName;
  hop.method = stringAttribute(server, ATTR_RPC_METHOD) ?? server.name.replace(`${RPC_SERVICE}/`, '');
  const outbound = new Map<string, GovernanceDecision[]>();
  const refusedAt = new Map<string, TraceSpan>();
  let executor: TraceSpan | undefined;
  // Depth-first below the server span; `underExecutor` tells the agent's own dispatches from its inbound governor.
  const visit = (span: TraceSpan, underExecutor: boolean): void => {
    for (const child of walk.children.get(span.spanId) ?? []) {
      if (child.kind === SPAN_KIND_SERVER) {
        hop.children.push(servedHop(walk, child, treeDepth + 1));
        continue;
      }
      if (isGovernance(child)) {
        const decision = decisionOf(child, underExecutor ? 'outbound' : 'inbound');
        hop.decisions.push(decision);
        if (underExecutor) {
          const key = decision.dispatchId ?? child.spanId;
          outbound.set(key, [...(outbound.get(key) ?? []), decision]);
          if (decision.decision !== 'accepted') refusedAt.set(key, child);
        }
      } else if (isExecutor(child) && executor === undefined && !underExecutor) {
        executor = child;
      }
      visit(child, underExecutor || isExecutor(child));
    }
  };
  visit(server, false);
  for (const [key, span] of refusedAt) hop.children.push(refusedHop(span, outbound.get(key) ?? [], hop));
  hop.children.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  applyExecutor(hop, executor);
  applyOutcome(hop, server);
  return hop;
}

function refusedHop(span: TraceSpan, decisions: GovernanceDecision[], parent: DelegationHop): DelegationHop {
  const refusal = refusalOf(decisions);
  const hop: DelegationHop = {
    kind: 'refused',
    spanId: span.spanId,
    depth: parent.depth + 1,
    outcome: 'rejected',
    decisions,
    startNs: span.startNs,
    endNs: span.endNs,
    children: [],
  };
  if (refusal !== undefined) markRefused(hop, refusal, undefined);
  return hop;
}

/** The A2A reason of a refusal (the stage span's `error.type`, else the server's outcome), and the stage that said it. */
function markRefused(hop: DelegationHop, refusal: GovernanceDecision, outcome: string | undefined): void {
  const reason = refusal.errorType ?? (outcome !== undefined && outcome !== 'ok' ? outcome : undefined) ?? refusal.reason;
  if (reason !== undefined) hop.reason = reason;
  hop.refusedBy = refusal.reason === undefined ? { stage: refusal.stage } : { stage: refusal.stage, detail: refusal.reason };
}

function applyExecutor(hop: DelegationHop, executor: TraceSpan | undefined): void {
  if (executor === undefined) return;
  const agentId = hop.agentId ?? stringAttribute(executor, ATTR_GEN_AI_AGENT_ID);
  const agentName = hop.agentName ?? stringAttribute(executor, ATTR_GEN_AI_AGENT_NAME);
  if (agentId !== undefined) hop.agentId = agentId;
  if (agentName !== undefined) hop.agentName = agentName;
  const depth = numberAttribute(executor, ATTR_LINEAGE_DEPTH);
  if (depth !== undefined) hop.depth = depth;
  const cost = numberAttribute(executor, ATTR_COST_USD);
  if (cost !== undefined) hop.costUsd = cost;
  const tokens = numberAttribute(executor, ATTR_USAGE_TOKENS);
  if (tokens !== undefined) hop.tokens = tokens;
  const taskId = stringAttribute(executor, ATTR_TASK_ID);
  if (taskId !== undefined) hop.taskId = taskId;
  const state = stringAttribute(executor, ATTR_TASK_STATE);
  if (state !== undefined) hop.taskState = state;
  // Child depths follow the run's lineage depth, not this tree's (a trace may start mid-lineage).
  for (const child of hop.children) if (child.kind === 'refused') child.depth = hop.depth + 1;
}

function applyOutcome(hop: DelegationHop, server: TraceSpan): void {
  const inboundRefusal = refusalOf(hop.decisions.filter((d) => d.side === 'inbound'));
  const outcome = stringAttribute(server, ATTR_OUTCOME);
  if (inboundRefusal !== undefined) {
    hop.outcome = 'rejected';
    markRefused(hop, inboundRefusal, outcome);
  } else if (outcome !== undefined && outcome !== 'ok') {
    hop.outcome = 'failed';
    hop.reason = outcome;
  } else if (server.error || hop.taskState === 'TASK_STATE_FAILED') {
    hop.outcome = 'failed';
    if (hop.taskState !== undefined) hop.reason = hop.taskState;
  } else if (outcome === undefined && hop.taskState === undefined) {
    hop.outcome = 'running';
  }
}

/**
 * The delegation tree of one trace's spans, as `a2a-otel` records them: each SERVER span is a hop
 * (the agent that served it, from `gen_ai.agent.*`), its `invoke_agent` run gives the lineage depth
 * and the spend, the `a2a.governance.<stage>` spans give the decisions — under the server span the
 * agent's inbound governor's, under its run its dispatcher's (a refused dispatch is a `refused`
 * child with no server span). A server span whose parent is missing (a partial trace) is a root.
 */
export function buildDelegationTree(spans: readonly TraceSpan[]): DelegationHop[] {
  const walk: Walk = { children: childrenByParent(spans) };
  const roots: DelegationHop[] = [];
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  // Roots: server spans with no server span above them (the guard stops a parent cycle).
  const serverAbove = (span: TraceSpan): boolean => {
    let parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
    for (let guard = 0; parent !== undefined && guard < spans.length; guard++) {
      if (parent.kind === SPAN_KIND_SERVER) return true;
      parent = parent.parentSpanId === undefined ? undefined : byId.get(parent.parentSpanId);
    }
    return false;
  };
  for (const span of spans) if (span.kind === SPAN_KIND_SERVER && !serverAbove(span)) roots.push(servedHop(walk, span, 0));
  roots.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  return roots;
}

/** Every hop of a tree, depth-first. */
export function flattenHops(roots: readonly DelegationHop[]): DelegationHop[] {
  const out: DelegationHop[] = [];
  const visit = (hop: DelegationHop): void => {
    out.push(hop);
    hop.children.forEach(visit);
  };
  roots.forEach(visit);
  return out;
}
