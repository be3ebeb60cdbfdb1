import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createProber, createRegistryHttpReader, createRegistryTrust, type RegistryService, startRegistryService } from '../src/index.js';
import { createPostgresRegistryStore, type PostgresRegistryStore } from '../src/postgres/index.js';
import { startA2AAgent, type TestAgent } from './helpers/a2a-agent.js';
import { OPERATOR_TOKEN } from './helpers/registry-server.js';

// Issue 34 item 5: several registry replicas on one PostgreSQL schema, each with its own pool, as
// separate processes would be. Every replica's store is made at once, so their migrations race too.
const connectionString = process.env.REGISTRY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new pg.Pool({ connectionString, max: 1 });
afterAll(() => admin.end());

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function startReplicas(count: number): Promise<RegistryService[]> {
  const schema = `registry_replicas_${randomBytes(6).toString('hex')}`;
  closers.push(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  const stores = await Promise.all(Array.from({ length: count }, () => createPostgresRegistryStore({ connectionString, schema })));
  const replicas = await Promise.all(
    stores.map((store: PostgresRegistryStore) =>
      startRegistryService({ operatorTokens: { ops: OPERATOR_TOKEN }, registryOptions: { store, allowLoopback: true }, prober: false }),
    ),
  );
  for (const replica of replicas) closers.push(() => replica.close());
  return replicas;
}

async function agent(): Promise<TestAgent> {
  const started = await startA2AAgent({ skills: [{ id: 'summarize', name: 'Summarize', description: 'summaries', tags: ['text'] }] });
  closers.push(started.close);
  return started;
}

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

const searchIds = async (replica: RegistryService) => {
  const answer = (await (await post(`${replica.url}/search`, { filters: { skill: 'summarize' } })).json()) as {
    results: Array<{ 'x-a2aplane': { agentId: string } }>;
  };
  return answer.results.map((entry) => entry['x-a2aplane'].agentId);
};

describe('registry replicas on one PostgreSQL schema', () => {
  it('enrolls through one, finds and serves the card through another, revokes through a third: refused everywhere within the cache bound', async () => {
    const [a, b, c] = (await startReplicas(3)) as [RegistryService, RegistryService, RegistryService];
    const summarizer = await agent();
    const enrolled = await post(`${a.url}/admin/enroll`, { card: summarizer.cardText }, OPERATOR_TOKEN);
    expect(enrolled.status).toBe(201);

    expect(await searchIds(b)).toEqual([summarizer.agentId]);
    const card = await fetch(`${b.url}/agents/${summarizer.agentId}/card`);
    expect(await card.text()).toBe(summarizer.cardText);

    // Servers verifying signed callers, each reading a different replica, with a 1 s cache.
    let now = Date.now();
    const clock = () => now;
    const atB = createRegistryTrust(createRegistryHttpReader({ baseUrl: b.url }), { ttlMs: 1000, clock });
    const atC = createRegistryTrust(createRegistryHttpReader({ baseUrl: c.url }), { ttlMs: 1000, clock });
    expect(await atB.resolveKey(summarizer.agentId)).toBeDefined();
    expect(await atC.resolveKey(summarizer.agentId)).toBeDefined();

    const revoked = await post(`${c.url}/admin/agents/${summarizer.agentId}/revoke`, { reason: 'leaked' }, OPERATOR_TOKEN);
    expect(revoked.status).toBe(200);
    // Every replica's reads see it at once: search, card, JWKS, look-up.
    for (const replica of [a, b, c]) {
      expect(await searchIds(replica)).toEqual([]);
      expect((await fetch(`${replica.url}/agents/${summarizer.agentId}/card`)).status).toBe(404);
      expect(await (await fetch(`${replica.url}/agents/${summarizer.agentId}/jwks.json`)).json()).toEqual({ keys: [] });
      expect((await replica.registry.lookupAgent(summarizer.agentId))?.status).toBe('revoked');
    }
    // The resolvers keep their answer for at most their TTL, then refuse.
    now += 1001;
    expect(await atB.resolveKey(summarizer.agentId)).toBeUndefined();
    expect(await atC.resolveKey(summarizer.agentId)).toBeUndefined();
    expect(await atB.identity.isAllowed(summarizer.agentId)).toBe(false);

    // The same key cannot come back through any replica.
    const again = await post(`${b.url}/admin/enroll`, { card: summarizer.cardText }, OPERATOR_TOKEN);
    expect(again.status).toBe(409);
  });

  it('two replicas enrolling the same agent at once store one record', async () => {
    const [a, b] = (await startReplicas(2)) as [RegistryService, RegistryService];
    const summarizer = await agent();
    const answers = await Promise.all(
      [a, b].map((replica) => post(`${replica.url}/admin/enroll`, { card: summarizer.cardText }, OPERATOR_TOKEN)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 201]);
    const page = await a.registry.searchAgents({ includeInactive: true });
    expect(page.agents.map((view) => view.agentId)).toEqual([summarizer.agentId]);
  });

  it('probe ownership: an agent checked by one replica is not probed again by the others until it is due', async () => {
    const replicas = await startReplicas(3);
    let getTasks = 0;
    const summarizer = await agent();
    const enrolled = await post(`${(replicas[0] as RegistryService).url}/admin/enroll`, { card: summarizer.cardText }, OPERATOR_TOKEN);
    expect(enrolled.status).toBe(201);
    let now = Date.now();
    const probers = replicas.map((replica) =>
      createProber(replica.registry, {
        allowLoopback: true,
        intervalMs: 60_000,
        clock: () => now,
        // Counts the JSONRPC GetTask of each probe (its only POST).
        fetch: (input, init) => {
          if (init?.method === 'POST') getTasks++;
          return fetch(input, init);
        },
      }),
    );
    // One after another: the first probes, the next two find a fresh verdict in the shared store.
    const rounds = [];
    for (const prober of probers) rounds.push(await prober.runOnce());
    expect(rounds).toEqual([
      { probed: 1, skipped: 0 },
      { probed: 0, skipped: 1 },
      { probed: 0, skipped: 1 },
    ]);
    expect(getTasks).toBe(1);
    // All at once, when it is due again: each replica re-reads the agent before probing it, so a
    // duplicate needs two replicas to start the same probe before either wrote; never more than one per replica.
    now += 60_001;
    const together = await Promise.all(probers.map((prober) => prober.runOnce()));
    const probed = together.reduce((sum, round) => sum + round.probed, 0);
    expect(probed).toBeGreaterThanOrEqual(1);
    expect(probed).toBeLessThanOrEqual(3);
    expect(getTasks).toBe(1 + probed);
    expect((await (replicas[2] as RegistryService).registry.lookupAgent(summarizer.agentId))?.health.status).toBe('up');
  });
});
