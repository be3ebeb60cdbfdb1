// Our server on the gRPC binding (@a2aplane/a2a-grpc over the same core as ours.ts).
// `--module <path to another build's a2a-grpc dist/index.js>` serves with that build of a2a-grpc
// and the server core it depends on (the suite's before/after row, A2A_GRPC_BASELINE).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpcBinding from '@a2aplane/a2a-grpc';
import * as serverCore from '@a2aplane/a2a-server-express';
import { ServerCredentials } from '@grpc/grpc-js';
import { GRPC_SERVER_OPTIONS, parseServerArgs, readyGrpc } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const modulePath = process.argv.includes('--module') ? process.argv[process.argv.indexOf('--module') + 1] : undefined;
const { bindA2AGrpc, withGrpcInterface } = (modulePath ? await import(pathToFileURL(modulePath).href) : grpcBinding) as typeof grpcBinding;
// The core that build of a2a-grpc imports (its own dependency, resolved from its package).
const corePath = modulePath
  ? join(dirname(createRequire(modulePath).resolve('@a2aplane/a2a-server-express/package.json')), 'dist/index.js')
  : undefined;
const { InMemoryTaskStore, createA2AServer } = (corePath ? await import(pathToFileURL(corePath).href) : serverCore) as typeof serverCore;
// grpc-js checks credentials with instanceof: they must come from the grpc-js that build imports.
const credentialsOf = (
  modulePath ? await import(pathToFileURL(createRequire(modulePath).resolve('@grpc/grpc-js')).href) : { ServerCredentials }
) as { ServerCredentials: typeof ServerCredentials };
const binding = await bindA2AGrpc({
  port: args.port,
  credentials: credentialsOf.ServerCredentials.createInsecure(),
  serverOptions: GRPC_SERVER_OPTIONS,
});
const options = oursOptions('http://127.0.0.1:0', args.mode, args.events, new InMemoryTaskStore());
binding.serve(createA2AServer({ ...options, card: withGrpcInterface(options.card, binding.target) }));
readyGrpc(binding.port, () => binding.server.forceShutdown());
