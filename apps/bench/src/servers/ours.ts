// Our server under test, on bare node:http (createNodeHttpHandler); with --fetch on the fetch binding through
// @hono/node-server (the adapter Hono users deploy on Node with); with --grpc on a2a-grpc. --governed adds the
// full governance pipeline. --store postgres: the PostgreSQL task store and event bus (POSTGRES_URL, the schema the
// suite migrated in BENCH_PG_SCHEMA, a pool of 10 connections like the official server's); --store redis: Redis's
// (REDIS_URL, under BENCH_KEY_PREFIX). --short-lived: the lifetimes of the resume suites' replicas (a killed runner
// leaves its task live; the suite deletes its prefix or schema).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type A2AServerOptions, createA2AServer, createInMemoryTaskStore, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import { GRPC_SERVER_OPTIONS, parseServerArgs, readyGrpc, serve } from './common.js';
import { oursOptions } from './ours-agent.js';

const args = parseServerArgs();

/** Budget caps far above the load, the recursion policy, a task policy (skill allowlist, generous concurrency), lineage spend. */
async function governance(): Promise<A2AServerOptions['governance']> {
  const g = await import('@a2aplane/a2a-governance');
  const governor = g.createGovernor({
    selfAgentId: 'bench-ours',
    // A USD cap needs an estimate to reserve against (issue 33): a cent per task, far under the cap.
    estimateCost: () => 0.01,
    budget: g.createInMemoryBudgetLedger({ maxUsdPerMinute: 1e9, maxTokensPerMinute: 1e12, maxTasksPerMinute: 1e9 }),
    recursion: g.createRecursionPolicy({ maxCallDepth: 8 }),
    policy: g.createTaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 100_000 } }),
    spend: g.createSpendAggregator(),
  });
  return { admit: (input) => governor.admit(input), readTaskContext: g.readTaskContext };
}

async function state(): Promise<Pick<A2AServerOptions, 'store' | 'eventBus'>> {
  const lifetimes = args.has('--short-lived') ? { ttlMs: 60_000, liveTtlMs: 120_000 } : {};
  const retention = args.has('--short-lived') ? { retentionMs: 60_000, liveTtlMs: 120_000 } : {};
  if (args.value('--store') === 'redis') {
    const { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } = await import('@a2aplane/a2a-redis');
    const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `bench-${process.pid}` });
    await client.connect();
    const keyPrefix = process.env.BENCH_KEY_PREFIX as string;
    return {
      store: createRedisTaskStore({ client, keyPrefix, ...lifetimes }),
      eventBus: createRedisTaskEventBus({ client, keyPrefix, ...retention }),
    };
  }
  if (args.value('--store') !== 'postgres') return { store: createInMemoryTaskStore() };
  const { createPostgresTaskEventBus, createPostgresTaskStore, createStaticKeyring } = await import('@a2aplane/a2a-postgres');
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: process.env.POSTGRES_URL, max: 10 });
  pool.on('error', () => undefined);
  const schema = process.env.BENCH_PG_SCHEMA as string;
  const pushConfigKeys = createStaticKeyring({ currentKeyId: 'bench', keys: { bench: randomBytes(32) } });
  // The suites empty the tables between runs or drop the schema; no sweep during a measured run.
  const store = createPostgresTaskStore({ pool, schema, pushConfigKeys, sweepIntervalMs: false, ...lifetimes });
  return { store, eventBus: createPostgresTaskEventBus({ pool, schema, ...retention }) };
}

const extra = { ...(await state()), ...(args.has('--governed') ? { governance: await governance() } : {}) };
const options = (baseUrl: string): A2AServerOptions => ({ ...oursOptions(baseUrl, args.mode, args.delayMs), ...extra });

if (args.has('--grpc')) {
  const { bindA2AGrpc, withGrpcInterface } = await import('@a2aplane/a2a-grpc');
  const { ServerCredentials } = await import('@grpc/grpc-js');
  const binding = await bindA2AGrpc({
    port: args.port,
    credentials: ServerCredentials.createInsecure(),
    serverOptions: GRPC_SERVER_OPTIONS,
  });
  const base = options('http://127.0.0.1:0');
  binding.serve(createA2AServer({ ...base, card: withGrpcInterface(base.card, binding.target) }));
  readyGrpc(binding.port, () => binding.server.forceShutdown());
} else if (args.has('--fetch')) {
  const { createFetchHandler } = await import('@a2aplane/a2a-server-express/fetch');
  const { createAdaptorServer } = await import('@hono/node-server');
  let handler: ((request: Request) => Promise<Response | undefined>) | undefined;
  const server = createAdaptorServer({
    fetch: async (request: Request) => (await handler?.(request)) ?? new Response(null, { status: 404 }),
  });
  serve(server as Server, args.port, (baseUrl) => {
    handler = createFetchHandler(createA2AServer(options(baseUrl)), { heartbeatMs: 0 });
  });
} else {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  serve(
    createServer((req, res) => handler(req, res)),
    args.port,
    (baseUrl) => {
      handler = createNodeHttpHandler(createA2AServer(options(baseUrl)), { heartbeatMs: 0 });
    },
  );
}
