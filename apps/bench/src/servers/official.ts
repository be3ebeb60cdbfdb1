// The official @a2a-js/sdk server: DefaultRequestHandler with an executor equivalent to ours (one Message, or
// submitted -> working -> one text artifact -> completed) and its InMemoryTaskStore, on express's jsonRpcHandler;
// with --grpc on its grpcService (@grpc/grpc-js); with --store postgres on its DatabaseTaskStore (Kysely, PostgresDialect
// on pg) at POSTGRES_URL, in the schema the suite created with `a2a-db` (BENCH_PG_SCHEMA), a pool of 10 connections.
import { createServer } from 'node:http';
import { AgentCard, type Artifact, type Message, Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore, type TaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { benchCard, GRPC_SERVER_OPTIONS, type Mode, parseServerArgs, replyText, serve, serveGrpc } from './common.js';

const args = parseServerArgs();
const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });
const parts = (text: string) => [{ content: { $case: 'text', value: text }, metadata: undefined } as Message['parts'][number]];

function executor(mode: Mode): AgentExecutor {
  return {
    async execute(ctx, bus) {
      const { taskId, contextId } = ctx;
      const content = ctx.userMessage.parts[0]?.content;
      const text = replyText(content?.$case === 'text' ? content.value : '');
      if (mode === 'message') {
        const reply = { messageId: globalThis.crypto.randomUUID(), contextId, taskId: '', role: Role.ROLE_AGENT, parts: parts(text) };
        bus.publish(AgentEvent.message({ ...reply, metadata: undefined, extensions: [], referenceTaskIds: [] }));
        bus.finished();
        return;
      }
      const state = { artifacts: [], history: [ctx.userMessage], metadata: undefined };
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), ...state }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      const artifact: Artifact = { artifactId: 'a-1', name: '', description: '', parts: parts(text), metadata: undefined, extensions: [] };
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: false, metadata: undefined }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
      bus.finished();
    },
  };
}

/** The official request handler serving `url` with `binding`. */
function handler(url: string, binding: 'JSONRPC' | 'GRPC', store: TaskStore): DefaultRequestHandler {
  const card = AgentCard.fromJSON(benchCard('bench-official', url, binding));
  return new DefaultRequestHandler(card, store, executor(args.mode));
}

async function store(): Promise<TaskStore> {
  if (args.value('--store') !== 'postgres') return new InMemoryTaskStore();
  const { DatabaseTaskStore } = await import('@a2a-js/sdk/server/database');
  const { Kysely, PostgresDialect } = await import('kysely');
  const { default: pg } = await import('pg');
  const options = `-c search_path=${process.env.BENCH_PG_SCHEMA}`;
  const pool = new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 10, options });
  pool.on('error', () => undefined);
  return new DatabaseTaskStore(new Kysely({ dialect: new PostgresDialect({ pool }) }));
}

const tasks = await store();
if (args.has('--grpc')) {
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('@a2a-js/sdk/server/grpc');
  const { Server, ServerCredentials } = await import('@grpc/grpc-js');
  const server = new Server(GRPC_SERVER_OPTIONS);
  serveGrpc(server, args.port, ServerCredentials.createInsecure(), (target) => {
    const requestHandler = handler(target, 'GRPC', tasks);
    server.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  });
} else {
  const app = express();
  serve(createServer(app), args.port, (baseUrl) => {
    const requestHandler = handler(`${baseUrl}/a2a/jsonrpc`, 'JSONRPC', tasks);
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
    app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  });
}
