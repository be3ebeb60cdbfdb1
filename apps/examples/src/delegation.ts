// Delegation: a front agent hands the work to a worker agent over A2A and passes the lineage
// (ADR-159 TaskContext: trace id, depth, visited agents) in message.metadata.ruvector.context and
// a W3C traceparent header; the worker reads it. A governed worker would refuse a loop or a chain
// deeper than its limit from the same data (see governed-agent.ts and apps/control-plane-demo).
// Run: pnpm --filter examples example src/delegation.ts
import { pathToFileURL } from 'node:url';
import { createA2AClient } from '@a2aplane/a2a-client';
import { childContext, createRootContext, readTaskContext } from '@a2aplane/a2a-governance';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { startShouter } from './serve-agent.js';

export async function delegationRoundTrip(): Promise<{ answer: string; traceparent: string | undefined }> {
  let traceparent: string | undefined;
  const worker = await startShouter({
    server: {
      executor: {
        async execute(context, events) {
          const task = createTaskUpdater(context, events);
          task.submit();
          const lineage = readTaskContext(context.message.metadata);
          const seen =
            lineage.ok && lineage.context
              ? `depth ${lineage.context.depth}, path ${lineage.context.visitedAgents.join(' > ')}`
              : 'no lineage';
          const text = context.message.parts.map((p) => p.text ?? '').join(' ');
          task.addArtifact([{ text: `${text.toUpperCase()} (${seen})` }]);
          task.complete();
        },
      },
    },
  });
  const front = await startShouter({
    server: {
      executor: {
        async execute(context, events) {
          const task = createTaskUpdater(context, events);
          task.submit();
          task.startWork('delegating to the worker');
          const root = createRootContext({ rootAgentId: 'front' });
          const child = childContext(root, { receivingAgentId: 'worker', parentTaskId: context.taskId });
          const client = createA2AClient({
            baseUrl: worker.url,
            fetch: async (input, init) => {
              traceparent =
                new Headers((input instanceof Request ? input.headers : init?.headers) as HeadersInit).get('traceparent') ?? traceparent;
              return fetch(input, init);
            },
          });
          const { task: delegated } = await client.sendMessage(
            { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: context.message.parts } },
            { context: child, signal: context.signal },
          );
          task.addArtifact(delegated?.artifacts?.[0]?.parts ?? [{ text: 'the worker gave no answer' }]);
          task.complete();
        },
      },
    },
  });
  try {
    const { task } = await createA2AClient({ baseUrl: front.url }).sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'do the work' }] },
    });
    return { answer: task?.artifacts?.[0]?.parts.map((p) => p.text).join('') ?? '', traceparent };
  } finally {
    await front.close();
    await worker.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await delegationRoundTrip());
}
