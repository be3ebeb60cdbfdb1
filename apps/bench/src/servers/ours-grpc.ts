// Our server on the gRPC binding (@a2aplane/a2a-grpc over the same core as ours.ts).
import { bindA2AGrpc, withGrpcInterface } from '@a2aplane/a2a-grpc';
import { createA2AServer, InMemoryTaskStore } from '@a2aplane/a2a-server-express';
import { ServerCredentials } from '@grpc/grpc-js';
import { GRPC_SERVER_OPTIONS, parseServerArgs, readyGrpc } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const binding = await bindA2AGrpc({ port: args.port, credentials: ServerCredentials.createInsecure(), serverOptions: GRPC_SERVER_OPTIONS });
const options = oursOptions('http://127.0.0.1:0', args.mode, args.events, new InMemoryTaskStore());
binding.serve(createA2AServer({ ...options, card: withGrpcInterface(options.card, binding.target) }));
readyGrpc(binding.port, () => binding.server.forceShutdown());
