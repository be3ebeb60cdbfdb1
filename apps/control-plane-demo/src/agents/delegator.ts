import type { TaskContext } from '@a2aplane/a2a-governance';
import type { Dispatcher } from '@a2aplane/a2a-routing';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { A2AError, type Task } from '@a2aplane/a2a-types';
import type { DelegationNode } from '../delegation-tree.js';

export interface DelegatorOptions {
  self: { agentId: string; name: string };
  /** The outbound dispatcher of this agent (budget/recursion/selector/policy, then remote executors). */
  dispatcher: () => Dispatcher;
  /** What each task costs this agent; reported as usage and metered into the shared ledger. */
  costUsd: number;
  /** How many children each task tries to delegate to (2: a binary tree). */
  fanOut: number;
  /** Levels of the tree the agents try to build: a task at depth `levels - 1` is a leaf. */
  levels: number;
  /** Delegate to this named agent instead of letting the selector choose (the A -> B -> C -> A cycle). */
  next?: () => string | undefined;
  nameOf: (agentId: string) => string;
}

export const DELEGATION_SKILL = 'delegate';

/** Reads the subtree a delegate returned in its `tree` artifact. */
function subtreeOf(task: Task | undefined): DelegationNode | undefined {
  const data = task?.artifacts?.find((artifact) => artifact.artifactId === 'tree')?.parts[0]?.data;
  return typeof data === 'object' && data !== null ? (data as { node: DelegationNode }).node : undefined;
}

/**
 * The agent of scenario 3: does its own (costed) work, then delegates to `fanOut` peers through
 * the governed dispatcher, one after another, and returns its subtree — including every rejected
 * delegation and why — so the root can draw the whole call graph.
 */
export function createDelegatorExecutor(options: DelegatorOptions): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork();
      const lineage = context.taskContext as TaskContext | undefined;
      const depth = lineage?.depth ?? 0;
      const node: DelegationNode & { traceId?: string } = {
        agent: options.self.name,
        depth,
        outcome: 'completed',
        costUsd: options.costUsd,
        children: [],
        ...(lineage ? { traceId: lineage.traceId } : {}),
      };
      const fanOut = depth < options.levels - 1 ? options.fanOut : 0;
      for (let i = 0; i < fanOut && lineage && !context.signal.aborted; i++) {
        const target = options.next?.();
        try {
          const result = await options.dispatcher().dispatch({
            request: {
              message: {
                messageId: globalThis.crypto.randomUUID(),
                role: 'ROLE_USER',
                parts: [{ text: `subtask ${i + 1} of ${options.self.name}` }],
                metadata: { skillId: DELEGATION_SKILL },
              },
            },
            task: { skillId: DELEGATION_SKILL, requiredCapabilities: ['streaming'] },
            caller: options.self.agentId,
            context: lineage,
            parentTaskId: context.taskId,
            ...(target ? { targetAgentId: target } : {}),
            signal: context.signal,
          });
          const child = subtreeOf(result.final.task);
          node.children.push(
            child ?? {
              agent: result.peerId ? options.nameOf(result.peerId) : 'unknown',
              depth: depth + 1,
              outcome: 'failed',
              costUsd: 0,
              children: [],
            },
          );
        } catch (error) {
          node.children.push({
            agent: target ? options.nameOf(target) : 'subtask',
            depth: depth + 1,
            outcome: 'rejected',
            reason: A2AError.isInstance(error) ? (error as A2AError).reason : error instanceof Error ? error.name : 'UNKNOWN',
            costUsd: 0,
            children: [],
          });
        }
      }
      events.reportUsage({ usd: options.costUsd });
      task.addArtifact([{ data: { node } }], { artifactId: 'tree', name: 'delegation subtree', lastChunk: true });
      task.complete();
    },
  };
}
