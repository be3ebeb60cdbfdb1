// The registry (@a2aplane/a2a-registry) over node:http with 10,000 enrolled agents, for the
// registry suite: `--store memory|postgres --agents N`. PostgreSQL: REGISTRY_BENCH_DATABASE_URL
// (default the local server, database `test`), a schema of this process, dropped on exit.
import { createServer } from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import { createInMemoryRegistryStore, createRegistry, createRegistryRequestHandler, type RegistryStore } from '@a2aplane/a2a-registry';
import { createPostgresRegistryStore, type PostgresRegistryStore } from '@a2aplane/a2a-registry/postgres';
import { sampleAgentRecord } from '@a2aplane/a2a-registry/testing';
import { agentCardFor, SKILLS, TAGS } from './registry-fixtures.js';

const argv = process.argv.slice(2);
const value = (flag: string): string | undefined => {
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
};
const storeKind = value('--store') ?? 'memory';
const agents = Number(value('--agents') ?? 10_000);
let store: RegistryStore;
let postgres: PostgresRegistryStore | undefined;
const schema = `bench_registry_${process.pid}`;
const pool =
  storeKind === 'postgres'
    ? new pg.Pool({ connectionString: process.env.REGISTRY_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', max: 10 })
    : undefined;
if (pool) {
  postgres = await createPostgresRegistryStore({ pool, schema });
  store = postgres;
} else {
  store = createInMemoryRegistryStore();
}

// Enrolled agents written straight to the store (what enrollment writes, without fetching 10,000 origins).
let next = 0;
const writer = async (): Promise<void> => {
  while (next < agents) {
    const index = next++;
    const id = `agent-${String(index).padStart(6, '0')}`;
    const card = agentCardFor(index, `https://${id}.agents.example`);
    await store.put(
      sampleAgentRecord({
        id,
        origin: `https://${id}.agents.example`,
        card,
        cardText: JSON.stringify(card),
        skills: card.skills.map((skill) => skill.id),
        tags: [...new Set(card.skills.flatMap((skill) => skill.tags ?? []))],
        health: { status: index % 10 === 0 ? 'down' : 'up', reason: '', consecutiveFailures: 0 },
      }),
      null,
    );
  }
};
await Promise.all(Array.from({ length: 8 }, writer));
// Fresh statistics and visibility maps, as autovacuum leaves them after a bulk load: without them
// the planner guesses (and cannot use index-only scans of the skill and tag rows).
for (const name of ['agents', 'agent_records', 'agent_skills', 'agent_tags']) await pool?.query(`VACUUM ANALYZE "${schema}".${name}`);

const registry = createRegistry({ store });
const server = createServer(createRegistryRequestHandler(registry, { publicUrl: 'https://registry.example' }));
server.keepAliveTimeout = 60_000;
server.listen(Number(value('--port') ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
  process.stdout.write(`INFO ${SKILLS.length} skills ${TAGS.length} tags\n`);
});
const stop = async () => {
  server.closeAllConnections();
  server.close();
  await postgres?.dropSchema();
  await pool?.end();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
