// One thread of the gRPC suite's unary load: its own HTTP/2 connection (lib/grpc-load-client.ts) and its share
// of the calls in flight; started by `startUnaryLoad` (lib/grpc-unary-load.ts), never on its own.
import { parentPort, workerData } from 'node:worker_threads';
import { decodeToJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { connectGrpcLoadClient } from './grpc-load-client.js';
import type { UnaryWorkerData, UnaryWorkerResult } from './grpc-unary-load.js';

const SEND_OP = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;
type Decoded = { task?: { status?: { state?: string } } };

const data = workerData as UnaryWorkerData;
const port = parentPort;
if (port === null) throw new Error('grpc-unary-worker runs as a worker thread');
const client = await connectGrpcLoadClient(
  data.generator,
  data.authority,
  { message: data.message, placeholder: data.placeholder },
  data.metadata,
);

/** `data.concurrency` loops of back-to-back SendMessage calls; every answer must be status 0 and a COMPLETED task. */
async function drive(seconds: number): Promise<UnaryWorkerResult> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  let invalid = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const reply = await client.call(SEND_OP.path);
      const only = reply.messages.length === 1 ? reply.messages[0] : undefined;
      if (reply.status !== 0 || only === undefined) invalid++;
      else if ((decodeToJson(SEND_OP.output, only) as Decoded).task?.status?.state === 'TASK_STATE_COMPLETED') calls++;
      else invalid++;
    }
  };
  await Promise.all(Array.from({ length: data.concurrency }, loop));
  return { calls, invalid };
}

port.on('message', (message: { run: number } | { close: true }) => {
  if ('close' in message) {
    void client.close().then(() => port.close());
    return;
  }
  void drive(message.run).then((result) => port.postMessage(result));
});
port.postMessage({ ready: true });
