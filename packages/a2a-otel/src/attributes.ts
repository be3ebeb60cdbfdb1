/**
 * Attribute and span names. Semantic conventions where they exist (RPC, GenAI agents, `error.type`),
 * the rest under `a2a.` (decision record 0027).
 */

/** `rpc.system` of every A2A span: the protocol, whatever the binding (JSON-RPC, HTTP+JSON, gRPC). */
export const RPC_SYSTEM = 'a2a';
/** `rpc.service`: the service of the A2A v1.0 proto (`package lf.a2a.v1; service A2AService`). */
export const RPC_SERVICE = 'lf.a2a.v1.A2AService';

export const ATTR_RPC_SYSTEM = 'rpc.system';
export const ATTR_RPC_SERVICE = 'rpc.service';
export const ATTR_RPC_METHOD = 'rpc.method';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';

export const ATTR_GEN_AI_OPERATION = 'gen_ai.operation.name';
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

/** `ok`, or the A2A error reason (`TASK_NOT_FOUND`, `BUDGET_EXCEEDED`, ...), or `error` for anything else. */
export const ATTR_OUTCOME = 'a2a.outcome';
export const ATTR_PROTOCOL_VERSION = 'a2a.protocol.version';
export const ATTR_TASK_ID = 'a2a.task.id';
export const ATTR_CONTEXT_ID = 'a2a.context.id';
export const ATTR_TASK_STATE = 'a2a.task.state';
export const ATTR_SKILL_ID = 'a2a.skill.id';
/** The caller as governance keys it: the verified AgentID, else the principal id. */
export const ATTR_CALLER_ID = 'a2a.caller.id';
export const ATTR_CALLER_AGENT_ID = 'a2a.caller.agent_id';
export const ATTR_LINEAGE_TRACE_ID = 'a2a.lineage.trace_id';
export const ATTR_LINEAGE_DEPTH = 'a2a.lineage.depth';
export const ATTR_LINEAGE_ROOT_AGENT_ID = 'a2a.lineage.root_agent_id';
export const ATTR_LINEAGE_PARENT_TASK_ID = 'a2a.lineage.parent_task_id';
export const ATTR_LINEAGE_VISITED_AGENTS = 'a2a.lineage.visited_agents';
export const ATTR_COST_USD = 'a2a.cost.usd';
export const ATTR_COST_ESTIMATED_USD = 'a2a.cost.estimated_usd';
export const ATTR_USAGE_TOKENS = 'a2a.usage.tokens';
export const ATTR_GOVERNANCE_STAGE = 'a2a.governance.stage';
export const ATTR_GOVERNANCE_DECISION = 'a2a.governance.decision';
export const ATTR_GOVERNANCE_REASON = 'a2a.governance.reason';
export const ATTR_GOVERNANCE_DISPATCH_ID = 'a2a.governance.dispatch_id';
export const ATTR_CURRENCY = 'a2a.budget.currency';
/** On a budget stage that refused: which cap (`usd`, `tokens`, ...), what the window held, and the cap. */
export const ATTR_BUDGET_LIMIT = 'a2a.budget.limit';
export const ATTR_BUDGET_OBSERVED = 'a2a.budget.observed';
export const ATTR_BUDGET_CAP = 'a2a.budget.cap';
export const ATTR_PUSH_OUTCOME = 'a2a.push.outcome';

/** Span name of an operation: `{rpc.service}/{rpc.method}` (RPC conventions). */
export const operationSpanName = (method: string): string => `${RPC_SERVICE}/${method}`;
