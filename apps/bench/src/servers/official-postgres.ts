// The official @a2a-js/sdk server with its DatabaseTaskStore (Kysely, PostgresDialect on pg) on
// POSTGRES_URL: the table `a2a-db migrate` creates, in the schema the postgres suite prepared
// (BENCH_PG_OFFICIAL_SCHEMA, as the connection's search_path), a pool of 10 connections.
import { createServer } from 'node:http';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parseServerArgs, serve } from './common.js';
import { officialHandler } from './official-agent.js';

const args = parseServerArgs();
const schema = process.env.BENCH_PG_OFFICIAL_SCHEMA as string;
const pool = new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 10, options: `-c search_path=${schema}` });
pool.on('error', () => undefined);
const store = new DatabaseTaskStore(new Kysely({ dialect: new PostgresDialect({ pool }) }));
const app = express();

function mount(baseUrl: string): void {
  const requestHandler = officialHandler(`${baseUrl}/a2a/jsonrpc`, 'JSONRPC', args.mode, args.events, store);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
}

serve(createServer(app), args, () => 0, mount);
