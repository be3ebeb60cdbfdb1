// The registry (@a2aplane/a2a-registry) over node:http with `--agents N` enrolled agents (default 10,000), on
// `--store memory|postgres`. PostgreSQL: REGISTRY_BENCH_DATABASE_URL (default the local server, database `test`),
// a schema of this process, dropped on exit.
import { createServer } from 'node:http';
import { createInMemoryRegistryStore, createRegistry, createRegistryRequestHandler } from '@a2aplane/a2a-registry';
import { createPostgresRegistryStore } from '@a2aplane/a2a-registry/postgres';
import { sampleAgentRecord } from '@a2aplane/a2a-registry/testing';
import pg from 'pg';
import { parseServerArgs, serve } from './common.js';
import { agentCardFor } from './registry-fixtures.js';

const args = parseServerArgs();
const agents = Number(args.value('--agents') ?? 10_000);
const schema = `bench_registry_${process.pid}`;
const connectionString = process.env.REGISTRY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pool = args.value('--store') === 'postgres' ? new pg.Pool({ connectionString, max: 10 }) : undefined;
const postgres = pool && (await createPostgresRegistryStore({ pool, schema }));
const store = postgres ?? createInMemoryRegistryStore();

// Enrolled agents written straight to the store (what enrollment writes, without fetching 10,000 origins).
let next = 0;
const writer = async (): Promise<void> => {
  while (next < agents) {
    const index = next++;
    const id = `agent-${String(index).padStart(6, '0')}`;
    const card = agentCardFor(index, `https://${id}.agents.example`);
    const record = sampleAgentRecord({
      id,
      origin: `https://${id}.agents.example`,
      card,
      cardText: JSON.stringify(card),
      skills: card.skills.map((skill) => skill.id),
      tags: [...new Set(card.skills.flatMap((skill) => skill.tags ?? []))],
      health: { status: index % 10 === 0 ? 'down' : 'up', reason: '', consecutiveFailures: 0 },
    });
    await store.put(record, null);
  }
};
await Promise.all(Array.from({ length: 8 }, writer));
// Fresh statistics and visibility maps, as autovacuum leaves them after a bulk load: without them
// the planner guesses (and cannot use index-only scans of the skill and tag rows).
for (const name of ['agents', 'agent_records', 'agent_skills', 'agent_tags']) await pool?.query(`VACUUM ANALYZE "${schema}".${name}`);

const handler = createRegistryRequestHandler(createRegistry({ store }), { publicUrl: 'https://registry.example' });
serve(createServer(handler), args.port, undefined, async () => {
  await postgres?.dropSchema();
  await pool?.end();
});
