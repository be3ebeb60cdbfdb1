import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { RegistryConflictError } from '../core/errors.js';
import type { AgentRecord, HealthStatus } from '../core/types.js';
import type { RegistryStore } from '../store/registry-store.js';

/** The test-runner functions the suite registers with (vitest's, node:test's or jest's fit). */
export interface ContractTestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
  afterEach(body: () => Promise<void>): unknown;
}

export interface RegistryStoreContractOptions {
  /** A fresh, empty store (its own schema or namespace). */
  create(): RegistryStore | Promise<RegistryStore>;
  dispose?(store: RegistryStore): void | Promise<void>;
}

/** A record for tests: unique id, AgentID and card URL unless overridden. */
export function sampleAgentRecord(overrides: Partial<AgentRecord> = {}): AgentRecord {
  const id = overrides.id ?? randomUUID();
  const agentId = overrides.agentId ?? randomUUID().replaceAll('-', '').padEnd(64, '0');
  const origin = overrides.origin ?? `https://${id}.agents.example`;
  const skill = { id: 'echo', name: 'Echo', description: 'repeats text', tags: ['text'] };
  const card = {
    name: 'sample',
    description: 'a sample agent',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [skill],
  };
  const at = new Date(0).toISOString();
  return {
    id,
    agentId,
    cardUrl: `${origin}/.well-known/agent-card.json`,
    origin,
    cardText: JSON.stringify(card),
    card: card as AgentRecord['card'],
    keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43), kid: agentId }],
    keySince: at,
    tier: 'default',
    owner: 'ops',
    skills: ['echo'],
    tags: ['text'],
    status: 'active',
    enrolledAt: at,
    updatedAt: at,
    keyHistory: [],
    health: { status: 'unknown', reason: 'not probed yet', consecutiveFailures: 0 },
    revision: 0,
    ...overrides,
  };
}

/**
 * The `RegistryStore` contract: compare-and-set revisions, unique AgentIDs and card URLs, look-ups
 * by former AgentIDs, copies, every search filter and complete pagination. The in-memory store
 * and the PostgreSQL store both run it.
 */
export function describeRegistryStoreContract(name: string, options: RegistryStoreContractOptions, t: ContractTestApi): void {
  const made: RegistryStore[] = [];
  const open = async (): Promise<RegistryStore> => {
    const store = await options.create();
    made.push(store);
    return store;
  };
  t.afterEach(async () => {
    for (const store of made.splice(0)) await options.dispose?.(store);
  });

  t.describe(`RegistryStore contract: ${name}`, () => {
    t.it('puts a new record at revision 1; neither its input nor what it hands out can change the store', async () => {
      const store = await open();
      const input = sampleAgentRecord({ id: 'a' });
      const stored = await store.put(input, null);
      assert.equal(stored.revision, 1);
      input.skills.push('changed after put');
      const read = await store.get('a');
      assert.deepEqual(read, stored);
      // A record handed out is the caller's copy or frozen: a change either stays local or throws.
      for (const handedOut of [read as AgentRecord, stored, ...(await store.search({})).agents]) {
        try {
          handedOut.skills.push('mutated');
          handedOut.health.status = 'down';
        } catch (error) {
          assert.ok(error instanceof TypeError);
        }
      }
      assert.deepEqual((await store.get('a'))?.skills, ['echo']);
      assert.equal((await store.get('a'))?.health.status, 'unknown');
      assert.deepEqual((await store.search({ skill: 'changed after put' })).agents, []);
      assert.equal(await store.get('missing'), undefined);
    });

    t.it('refuses a write at a stale revision, and a second create of an id', async () => {
      const store = await open();
      const stored = await store.put(sampleAgentRecord({ id: 'a' }), null);
      await assert.rejects(store.put(stored, null), RegistryConflictError);
      const next = await store.put({ ...stored, tier: 'gold' }, 1);
      assert.equal(next.revision, 2);
      await assert.rejects(store.put({ ...stored, tier: 'lost' }, 1), RegistryConflictError);
      assert.equal((await store.get('a'))?.tier, 'gold');
    });

    t.it('refuses two records with one current AgentID or one card URL', async () => {
      const store = await open();
      const first = await store.put(sampleAgentRecord(), null);
      await assert.rejects(store.put(sampleAgentRecord({ agentId: first.agentId }), null), RegistryConflictError);
      await assert.rejects(store.put(sampleAgentRecord({ cardUrl: first.cardUrl }), null), RegistryConflictError);
    });

    t.it('finds a record by its current and former AgentIDs and by its current card URL', async () => {
      const store = await open();
      const first = await store.put(sampleAgentRecord(), null);
      const rotated = await store.put(
        {
          ...first,
          agentId: 'b'.repeat(64),
          cardUrl: `${first.origin}/card.json`,
          keyHistory: [{ agentId: first.agentId, keys: first.keys, from: first.keySince, until: first.updatedAt, reason: 'rotated' }],
        },
        first.revision,
      );
      assert.equal((await store.findByAgentId('b'.repeat(64)))?.id, first.id);
      assert.equal((await store.findByAgentId(first.agentId))?.agentId, rotated.agentId);
      assert.equal((await store.findByCardUrl(`${first.origin}/card.json`))?.id, first.id);
      assert.equal(await store.findByCardUrl(first.cardUrl), undefined);
      assert.equal(await store.findByAgentId('c'.repeat(64)), undefined);
    });

    describeSearches(t, open);
  });
}

/** The search half of the contract: filters, skill and tag together, pagination. */
function describeSearches(t: ContractTestApi, open: () => Promise<RegistryStore>): void {
  t.it('searches by skill, tag, free text, health and origin; inactive agents only when asked', async () => {
    const store = await open();
    const card = (skillId: string, tag: string, description: string) => ({
      ...sampleAgentRecord().card,
      description,
      skills: [{ id: skillId, name: skillId, description: `does ${skillId}`, tags: [tag] }],
    });
    const health = (status: HealthStatus) => ({ status, reason: '', consecutiveFailures: 0 });
    await store.put(
      sampleAgentRecord({
        id: '1',
        skills: ['translate'],
        tags: ['language'],
        card: card('translate', 'language', 'French and German') as AgentRecord['card'],
        health: health('up'),
      }),
      null,
    );
    await store.put(
      sampleAgentRecord({
        id: '2',
        skills: ['forecast'],
        tags: ['weather'],
        card: card('forecast', 'weather', 'Rain radar') as AgentRecord['card'],
        health: health('down'),
      }),
      null,
    );
    await store.put(
      sampleAgentRecord({
        id: '3',
        skills: ['translate'],
        tags: ['language'],
        status: 'revoked',
        card: card('translate', 'language', 'old') as AgentRecord['card'],
      }),
      null,
    );
    const ids = async (query: Parameters<RegistryStore['search']>[0]) => (await store.search(query)).agents.map((a) => a.id);
    assert.deepEqual(await ids({ skill: 'translate' }), ['1']);
    assert.deepEqual(await ids({ skill: 'translate', includeInactive: true }), ['1', '3']);
    assert.deepEqual(await ids({ tag: 'weather' }), ['2']);
    assert.deepEqual(await ids({ text: 'RADAR rain' }), ['2']);
    assert.deepEqual(await ids({ text: 'radar french' }), []);
    assert.deepEqual(await ids({ health: ['up', 'degraded'] }), ['1']);
    assert.deepEqual(await ids({ origin: 'https://2.agents.example' }), ['2']);
    assert.deepEqual(await ids({}), ['1', '2']);
  });

  t.it('an update that changes skills and tags is found by the new ones only', async () => {
    const store = await open();
    const first = await store.put(sampleAgentRecord({ id: 'x', skills: ['old-skill'], tags: ['old-tag'] }), null);
    await store.put({ ...first, skills: ['new-skill'], tags: ['new-tag'] }, first.revision);
    const ids = async (query: Parameters<RegistryStore['search']>[0]) => (await store.search(query)).agents.map((a) => a.id);
    assert.deepEqual(await ids({ skill: 'old-skill' }), []);
    assert.deepEqual(await ids({ tag: 'old-tag' }), []);
    assert.deepEqual(await ids({ skill: 'new-skill' }), ['x']);
    assert.deepEqual(await ids({ tag: 'new-tag' }), ['x']);
  });

  t.it('a search by skill and tag together, and a skill search paged past agents without the skill', async () => {
    const store = await open();
    const made: string[] = [];
    for (let index = 0; index < 30; index++) {
      const id = `agent-${String(index).padStart(2, '0')}`;
      const skills = index % 3 === 0 ? ['rare', 'common'] : ['common'];
      const tags = index % 2 === 0 ? ['even'] : ['odd'];
      await store.put(sampleAgentRecord({ id, skills, tags, status: index === 9 ? 'disabled' : 'active' }), null);
      if (index % 3 === 0 && index !== 9) made.push(id);
    }
    const all = async (query: Parameters<RegistryStore['search']>[0]) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.search({ ...query, limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.agents.map((a) => a.id));
        cursor = page.nextCursor;
      } while (cursor !== undefined && seen.length < 100);
      return seen;
    };
    assert.deepEqual(await all({ skill: 'rare' }), made);
    assert.deepEqual(await all({ skill: 'rare', tag: 'even' }), ['agent-00', 'agent-06', 'agent-12', 'agent-18', 'agent-24']);
    assert.deepEqual(await all({ tag: 'odd', skill: 'rare' }), ['agent-03', 'agent-15', 'agent-21', 'agent-27']);
    assert.deepEqual(await all({ skill: 'missing' }), []);
    assert.deepEqual(await all({ tag: 'missing' }), []);
  });

  t.it('pages through every match once, in id order', async () => {
    const store = await open();
    const all: string[] = [];
    for (let index = 0; index < 25; index++) {
      const id = `agent-${String(index).padStart(2, '0')}`;
      all.push(id);
      await store.put(sampleAgentRecord({ id }), null);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.search({ limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.agents.map((a) => a.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    assert.deepEqual(seen, all);
    assert.equal(pages, 3);
    assert.equal((await store.search({ limit: 1000 })).agents.length, 25);
  });
}
