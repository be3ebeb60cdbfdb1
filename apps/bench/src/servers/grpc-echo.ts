// The floor of the gRPC suite: bare grpc-js answering every SendMessage with the same
// pre-encoded COMPLETED task (no decoding, no A2A processing at all).
import { encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { echoResult, GRPC_SERVER_OPTIONS, parseServerArgs, serveGrpc } from './common.js';

const args = parseServerArgs();
const op = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;
const server = new Server(GRPC_SERVER_OPTIONS);
const pass = (b: Buffer): Buffer => b;
const answer = encodeFromJson(op.output, echoResult('task', 'hello'));
serveGrpc(
  server,
  args,
  () => {
    server.addService(
      {
        sendMessage: {
          path: op.path,
          requestStream: false,
          responseStream: false,
          requestSerialize: pass,
          requestDeserialize: pass,
          responseSerialize: pass,
          responseDeserialize: pass,
        },
      },
      {
        sendMessage: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, answer),
      },
    );
  },
  ServerCredentials.createInsecure(),
);
