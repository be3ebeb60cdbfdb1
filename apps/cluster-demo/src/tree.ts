/** The AgentID the three replicas share: they are one agent. */
export const AGENT_ID = 'cluster-agent';

/** What one node of the delegation tree costs (its governed estimate and its reported usage). */
export const TREE_NODE_USD = 0.01;

/** A delegation node as the tree skill reports it: a task that ran, or a delegation the receiving replica's governor refused. */
export interface TreeNode {
  replica: string;
  depth: number;
  outcome: 'done' | 'rejected';
  /** The refusal's reason (`BUDGET_EXCEEDED`, `RECURSION_LIMIT`, ...). */
  reason?: string;
  children: TreeNode[];
}
