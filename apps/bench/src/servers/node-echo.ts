// Bare node:http echo: reads the JSON-RPC body, parses it and answers the same result shape as
// the A2A servers. The machine's limit for this request.
import { createServer } from 'node:http';
import { echoResult, parseServerArgs, requestText, serve } from './common.js';

const args = parseServerArgs();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body: { id?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
    } catch {
      res.writeHead(400).end();
      return;
    }
    const out = JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, result: echoResult(args.mode, requestText(body)) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
});
serve(server, args);
