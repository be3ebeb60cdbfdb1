// The floors: bare node:http parsing the JSON-RPC body and answering the A2A servers' result shape, or
// with --grpc bare grpc-js answering every SendMessage with one pre-encoded COMPLETED task (no decoding).
import { createServer } from 'node:http';
import type { GrpcOperation } from '@a2aplane/a2a-grpc';
import { GRPC_SERVER_OPTIONS, type Mode, parseServerArgs, replyText, serve, serveGrpc } from './common.js';

const args = parseServerArgs();

function result(mode: Mode, text: string): unknown {
  const contextId = globalThis.crypto.randomUUID();
  const parts = [{ text: replyText(text) }];
  if (mode === 'message') return { message: { messageId: globalThis.crypto.randomUUID(), contextId, role: 'ROLE_AGENT', parts } };
  const status = { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() };
  return { task: { id: globalThis.crypto.randomUUID(), contextId, status, artifacts: [{ artifactId: 'a-1', parts }] } };
}

if (args.has('--grpc')) {
  const { encodeFromJson, GRPC_OPERATIONS } = await import('@a2aplane/a2a-grpc');
  const { Server, ServerCredentials } = await import('@grpc/grpc-js');
  const op = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;
  const pass = (bytes: Buffer): Buffer => bytes;
  const answer = encodeFromJson(op.output, result('task', 'hello'));
  const server = new Server(GRPC_SERVER_OPTIONS);
  serveGrpc(server, args.port, ServerCredentials.createInsecure(), () => {
    const method = { path: op.path, requestStream: false, responseStream: false, requestSerialize: pass, requestDeserialize: pass };
    server.addService(
      { sendMessage: { ...method, responseSerialize: pass, responseDeserialize: pass } },
      { sendMessage: (_call: unknown, callback: (error: null, reply: Buffer) => void) => callback(null, answer) },
    );
  });
} else {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: { id?: unknown; params?: { message?: { parts?: Array<{ text?: unknown }> } } };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const text = body.params?.message?.parts?.[0]?.text;
      const out = JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, result: result(args.mode, typeof text === 'string' ? text : '') });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
  serve(server, args.port);
}
