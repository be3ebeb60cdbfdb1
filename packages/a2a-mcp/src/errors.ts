import { A2AError } from '@a2aplane/a2a-types';

/** Why a governed MCP tool call was refused before it was sent. */
export type McpRefusalReason = 'budget' | 'policy' | 'aborted';

/**
 * A governed MCP tool call that was not sent: the task's budget is spent (`budget`, with the
 * ledger's `BudgetExceededError` as `cause`), its policy limit was reached or the operator's policy
 * refused the call (`policy`), or the task was canceled (`aborted`).
 */
export class McpToolRefusedError extends Error {
  override readonly name = 'McpToolRefusedError';
  constructor(
    readonly reason: McpRefusalReason,
    readonly tool: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A safe text for an MCP caller: our typed A2A errors say what failed; anything else says less. */
export function describeCallError(error: unknown): string {
  if (error instanceof A2AError) return `The agent refused the call: ${error.message}`;
  if (error instanceof Error && /^A2A|Circuit|Card|Sse|StreamResume/.test(error.name))
    return `The call to the agent failed: ${error.message}`;
  return 'The call to the agent failed.';
}
