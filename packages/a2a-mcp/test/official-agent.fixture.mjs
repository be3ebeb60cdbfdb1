// The official @a2a-js/sdk server, run as a plain Node process (its express stack does not load
// under vitest). Prints the base URL on stdout once listening; tasks whose text is "hold" wait for a
// cancel or for a message "release:<taskId>".
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

const holds = new Map();
const canceled = new Set();
const released = new Set();

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const content = ctx.userMessage.parts[0]?.content;
    const text = content?.$case === 'text' ? content.value : '';
    if (text.startsWith('release:')) {
      const id = text.slice('release:'.length);
      released.add(id);
      holds.get(id)?.();
      bus.publish(
        AgentEvent.message({ messageId: `r-${taskId}`, contextId, role: 2, parts: [{ content: { $case: 'text', value: 'released' } }] }),
      );
      bus.finished();
      return;
    }
    if (!ctx.task) {
      bus.publish(AgentEvent.task(Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [] })));
    }
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state: 'TASK_STATE_WORKING' } })));
    if (text === 'hold') {
      if (!released.has(taskId)) await new Promise((resolve) => holds.set(taskId, resolve));
      if (canceled.has(taskId)) return;
    }
    bus.publish(
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId: 'a-1', parts: [{ text: `echo: ${text}` }] } }),
      ),
    );
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state: 'TASK_STATE_COMPLETED' } })));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    canceled.add(taskId);
    bus.publish(
      AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: '', status: { state: 'TASK_STATE_CANCELED' } })),
    );
    bus.finished();
    holds.get(taskId)?.();
  },
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = AgentCard.fromJSON({
    name: 'official',
    description: 'the @a2a-js/sdk reference server',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  process.stdout.write(`${url}\n`);
});
process.on('SIGTERM', () => {
  for (const release of holds.values()) release();
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
