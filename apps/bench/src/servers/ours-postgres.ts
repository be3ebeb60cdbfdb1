// Our server on bare node:http with the PostgreSQL task store and event bus (@a2aplane/a2a-postgres),
// as one replica of a cluster would run: POSTGRES_URL, the schema the postgres suite migrated
// (BENCH_PG_OURS_SCHEMA), a pool of 10 connections (the official server's pool is the same size).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createPostgresTaskEventBus, createPostgresTaskStore, createStaticKeyring } from '@a2aplane/a2a-postgres';
import { createA2AServer, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import pg from 'pg';
import { parseServerArgs, serve } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const pool = new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 10 });
pool.on('error', () => undefined);
const schema = process.env.BENCH_PG_OURS_SCHEMA as string;
const pushConfigKeys = createStaticKeyring({ currentKeyId: 'bench', keys: { bench: randomBytes(32) } });
// The suite deletes the rows between runs; no sweep during a measured run.
const store = createPostgresTaskStore({ pool, schema, pushConfigKeys, sweepIntervalMs: false });
const eventBus = createPostgresTaskEventBus({ pool, schema });
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
serve(
  createServer((req, res) => handler(req, res)),
  args,
  () => 0,
  (baseUrl) => {
    handler = createNodeHttpHandler(createA2AServer({ ...oursOptions(baseUrl, args.mode, args.events, store, args.delayMs), eventBus }), {
      heartbeatMs: 0,
    });
  },
);
