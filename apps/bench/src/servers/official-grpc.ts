// The official @a2a-js/sdk gRPC server: DefaultRequestHandler + InMemoryTaskStore + grpcService
// on @grpc/grpc-js, with the executor of official-agent.ts.
import { A2AService, UserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { GRPC_SERVER_OPTIONS, parseServerArgs, serveGrpc } from './common.js';
import { InMemoryTaskStore, officialHandler } from './official-agent.js';

const args = parseServerArgs();
const server = new Server(GRPC_SERVER_OPTIONS);
serveGrpc(
  server,
  args,
  (target) => {
    const requestHandler = officialHandler(target, 'GRPC', args.mode, args.events, new InMemoryTaskStore());
    server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  },
  ServerCredentials.createInsecure(),
);
