// Bare express 5 echo with express.json(): express's floor for this request.
import { createServer } from 'node:http';
import express from 'express';
import { echoResult, parseServerArgs, requestText, serve } from './common.js';

const args = parseServerArgs();
const app = express();
app.use(express.json());
app.post('/a2a/jsonrpc', (req, res) => {
  const body = req.body as { id?: unknown };
  res.json({ jsonrpc: '2.0', id: body?.id ?? null, result: echoResult(args.mode, requestText(body)) });
});
serve(createServer(app), args);
