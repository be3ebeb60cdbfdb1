// The official @a2a-js/sdk server as a plain Node process (its express stack does not load under
// vitest). Prints its base URL, then reads one line from stdin: the signed card to serve, verbatim,
// at /.well-known/agent-card.json (the SDK's own card handler would re-serialize it); prints "ready".
import { AgentCard, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    if (!ctx.task)
      bus.publish(AgentEvent.task(Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [] })));
    bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state: 'TASK_STATE_COMPLETED' } })));
    bus.finished();
  },
  async cancelTask() {},
};

const app = express();
let signedCard = '';
app.get('/.well-known/agent-card.json', (_req, res) => res.type('application/json').send(signedCard));
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
let input = '';
process.stdin.on('data', (chunk) => {
  input += chunk.toString('utf8');
  if (!input.includes('\n')) return;
  signedCard = input.split('\n')[0];
  const { signatures: _signatures, ...card } = JSON.parse(signedCard);
  const requestHandler = new DefaultRequestHandler(AgentCard.fromJSON(card), new InMemoryTaskStore(), executor);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write('ready\n');
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
