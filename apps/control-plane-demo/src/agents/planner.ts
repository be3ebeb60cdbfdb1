import type { TaskContext } from '@a2aplane/a2a-governance';
import type { Dispatcher } from '@a2aplane/a2a-routing';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';

export interface PlannerOptions {
  self: { agentId: string };
  /** The agent's outbound dispatcher (signed calls, recursion guard). */
  dispatcher: () => Dispatcher;
  /** The agent it delegates the pricing to. */
  delegate: () => string;
  items: readonly string[];
  costUsd: number;
}

/**
 * The root agent of the MCP scenario: delegates the pricing of `items` to another agent through
 * its governed dispatcher, and returns that agent's prices with the trace id of the whole run.
 */
export function createPlannerExecutor(options: PlannerOptions): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('delegating the pricing');
      const lineage = context.taskContext as TaskContext | undefined;
      if (!lineage) {
        task.fail('no lineage: the agent runs governed only');
        return;
      }
      const result = await options.dispatcher().dispatch({
        request: {
          message: {
            messageId: globalThis.crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ data: { items: [...options.items] } }],
            metadata: { skillId: 'work' },
          },
        },
        task: { skillId: 'work', requiredCapabilities: [] },
        caller: options.self.agentId,
        context: lineage,
        parentTaskId: context.taskId,
        targetAgentId: options.delegate(),
        signal: context.signal,
      });
      const prices = result.final.task?.artifacts?.find((artifact) => artifact.artifactId === 'prices')?.parts[0]?.data;
      events.reportUsage({ usd: options.costUsd });
      task.addArtifact([{ data: { prices: prices ?? null, traceId: lineage.traceId } }], { artifactId: 'plan', lastChunk: true });
      if (result.final.task?.status.state === 'TASK_STATE_COMPLETED') task.complete();
      else task.fail(`the delegate ended ${result.final.task?.status.state ?? 'without a task'}`);
    },
  };
}
