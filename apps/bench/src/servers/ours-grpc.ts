// Our server on the gRPC binding (@a2aplane/a2a-grpc over the same core as ours.ts).
// `--module <path to another build's dist/index.js>` serves with that build of a2a-grpc instead
// (the suite's before/after row, A2A_GRPC_BASELINE); the core is this workspace's either way.
import { pathToFileURL } from 'node:url';
import * as grpcBinding from '@a2aplane/a2a-grpc';
import { InMemoryTaskStore, createA2AServer } from '@a2aplane/a2a-server-express';
import { ServerCredentials } from '@grpc/grpc-js';
import { GRPC_SERVER_OPTIONS, parseServerArgs, readyGrpc } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const modulePath = process.argv.includes('--module') ? process.argv[process.argv.indexOf('--module') + 1] : undefined;
const { bindA2AGrpc, withGrpcInterface } = (modulePath ? await import(pathToFileURL(modulePath).href) : grpcBinding) as typeof grpcBinding;
const binding = await bindA2AGrpc({ port: args.port, credentials: ServerCredentials.createInsecure(), serverOptions: GRPC_SERVER_OPTIONS });
const options = oursOptions('http://127.0.0.1:0', args.mode, args.events, new InMemoryTaskStore());
binding.serve(createA2AServer({ ...options, card: withGrpcInterface(options.card, binding.target) }));
readyGrpc(binding.port, () => binding.server.forceShutdown());
