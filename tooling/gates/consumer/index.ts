// A tiny consumer that compiles against the built .d.ts files of the published packages,
// with skipLibCheck off, under bundler and node16 resolution (tooling/gates/run.mjs).
import { A2A_PROTOCOL_VERSION, type AgentCard, classifyJsonRpcRequest, parseTask, type Task, TaskNotFoundError } from '@a2aplane/a2a-types';

const card: AgentCard = {
  name: 'consumer',
  description: 'compiles against dist',
  supportedInterfaces: [{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION }],
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

const parsed = parseTask({ id: 't', status: { state: 'TASK_STATE_WORKING' } });
const task: Task | undefined = parsed.success ? parsed.data : undefined;
const classified = classifyJsonRpcRequest('{}');
const error = new TaskNotFoundError();

export const consumer = { card, task, kind: classified.kind, code: error.code };

// The Node-only gRPC binding: its declarations (protobuf-es and grpc-js types included) compile too.
import { type GrpcTransportFactoryOptions, grpcInterface } from '@a2aplane/a2a-grpc/client';
import type { A2AGrpcServiceOptions } from '@a2aplane/a2a-grpc/server';

export const grpcConsumer: {
  iface: ReturnType<typeof grpcInterface>;
  options?: GrpcTransportFactoryOptions;
  service?: A2AGrpcServiceOptions;
} = {
  iface: grpcInterface('127.0.0.1:50051'),
};
