import { createCallAuthorizer } from '@a2aplane/a2a-governance';
import { agentIdFromPublicKey, createAllowlistIdentityResolver, createJwks, generateKeyPair } from '@a2aplane/a2a-identity';
import { CardSignatureInvalidError, createA2AClient } from '@a2aplane/a2a-client';
import { PeerPool } from '@a2aplane/a2a-routing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createRegistry,
  createRegistryCardVerifier,
  createRegistryPeerSource,
  createRegistryTrust,
  readRegistryTrustSnapshot,
  type Registry,
  type RegistryReader,
} from '../src/index.js';
import { type AgentSite, publishAgent, signedCard, startAgentSite } from './helpers/agent-site.js';

let site: AgentSite;
let registry: Registry;
const operator = { operator: 'ops' };

beforeEach(async () => {
  site = await startAgentSite();
  registry = createRegistry({ allowLoopback: true });
});
afterEach(() => site.close());

async function enrolled(card: Parameters<typeof publishAgent>[1] = {}) {
  const agent = publishAgent(site, card);
  const result = await registry.enroll({ card: agent.text, jwks: agent.jwks }, operator);
  if (!result.ok) throw new Error(`enrollment refused: ${result.reason}`);
  return { ...agent, id: result.agent.id };
}

describe('the key resolver', () => {
  it('resolves an active agent key (synchronously while cached) and refuses it within ttlMs of a revocation', async () => {
    const agent = await enrolled();
    let now = 0;
    const trust = createRegistryTrust(registry, { ttlMs: 1000, clock: () => now });
    const key = await trust.resolveKey(agent.agentId);
    expect(key && agentIdFromPublicKey(key.publicKey)).toBe(agent.agentId);
    expect(trust.resolveKey(agent.agentId)).toBe(key);
    expect(await trust.identity.isAllowed(agent.agentId)).toBe(true);
    expect(await trust.tierOf(agent.agentId)).toBe('default');
    await registry.revoke(agent.agentId);
    now = 999;
    expect(trust.resolveKey(agent.agentId)).toBe(key); // still inside the TTL
    now = 1000;
    expect(await trust.resolveKey(agent.agentId)).toBeUndefined();
    expect(await trust.identity.isAllowed(agent.agentId)).toBe(false);
    expect(await trust.tierOf(agent.agentId)).toBeUndefined();
  });

  it('refuses a former (rotated) AgentID, an unknown one, and everyone while the registry cannot be read', async () => {
    const first = await enrolled();
    const second = await enrolled();
    const trust = createRegistryTrust(registry, { ttlMs: 0 });
    expect(await trust.resolveKey(first.agentId)).toBeUndefined();
    expect(await trust.resolveKey(second.agentId)).toBeDefined();
    expect(await trust.resolveKey('f'.repeat(64))).toBeUndefined();
    const onError = vi.fn();
    const down: RegistryReader = { ...registry, lookupAgent: () => Promise.reject(new Error('registry down')) };
    const failing = createRegistryTrust(down, { onError });
    expect(await failing.resolveKey(second.agentId)).toBeUndefined();
    expect(onError).toHaveBeenCalledOnce();
    // A key known before the registry went down is not used past its TTL.
    let up = true;
    let now = 0;
    const flaky: RegistryReader = { ...registry, lookupAgent: (id) => (up ? registry.lookupAgent(id) : Promise.reject(new Error('down'))) };
    const cachedTrust = createRegistryTrust(flaky, { ttlMs: 100, clock: () => now });
    expect(await cachedTrust.resolveKey(second.agentId)).toBeDefined();
    up = false;
    now = 100;
    expect(await cachedTrust.resolveKey(second.agentId)).toBeUndefined();
  });
});

describe('the operator config trust block from the registry', () => {
  it('gives a2a-governance an allowlist of active agents and their tiers, which its call authorizer enforces', async () => {
    const orchestrator = await enrolled();
    await registry.enroll({ card: orchestrator.text, jwks: orchestrator.jwks, tier: 'tier:0' }, operator);
    const other = await startAgentSite();
    try {
      const specialist = publishAgent(other);
      await registry.enroll({ card: specialist.text, jwks: specialist.jwks, tier: '3' }, operator);
      const snapshot = await readRegistryTrustSnapshot(registry);
      expect(snapshot.allowlist.sort()).toEqual([orchestrator.agentId, specialist.agentId].sort());
      expect(snapshot.tiers).toEqual({ [orchestrator.agentId]: 0, [specialist.agentId]: 3 });
      const authorizer = createCallAuthorizer({
        identity: createAllowlistIdentityResolver(snapshot.allowlist),
        tiers: snapshot.tiers,
        rules: [{ caller: 'tier:0', skills: ['*'] }],
      });
      const ask = (agentId: string) => authorizer.authorize({ caller: agentId, callerAgentId: agentId, skill: 'forecast' });
      expect(await ask(orchestrator.agentId)).toEqual({ allowed: true });
      expect(await ask(specialist.agentId)).toMatchObject({ allowed: false });
      await registry.revoke(specialist.agentId);
      expect((await readRegistryTrustSnapshot(registry)).allowlist).toEqual([orchestrator.agentId]);
    } finally {
      await other.close();
    }
  });
});

describe('a client given the registry', () => {
  const clientFor = (verifier?: ReturnType<typeof createRegistryCardVerifier>) =>
    createA2AClient({ baseUrl: site.origin, allowInsecureLoopback: true, ...(verifier ? { cardVerifier: verifier } : {}) });

  it('accepts the enrolled agent card signed by the enrolled key', async () => {
    await enrolled();
    expect((await clientFor(createRegistryCardVerifier(registry, { ttlMs: 0 })).getCard()).name).toBe('weather');
  });

  it('refuses an unsigned card for an enrolled agent, which a client without the registry accepts', async () => {
    const agent = await enrolled();
    const card = JSON.parse(agent.text);
    delete card.signatures;
    site.cardText = JSON.stringify(card);
    expect((await clientFor().getCard()).name).toBe('weather');
    await expect(clientFor(createRegistryCardVerifier(registry, { ttlMs: 0 })).getCard()).rejects.toBeInstanceOf(CardSignatureInvalidError);
  });

  it('refuses a card signed by another key (published at the origin jku), which a client without the registry accepts', async () => {
    const agent = await enrolled();
    const other = generateKeyPair('EdDSA');
    const forged = signedCard(site.origin, other);
    site.cardText = forged.text;
    site.jwks = createJwks([other]);
    expect((await clientFor().getCard()).name).toBe('weather');
    const error = await clientFor(createRegistryCardVerifier(registry, { ttlMs: 0 }))
      .getCard()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CardSignatureInvalidError);
    expect((error as CardSignatureInvalidError).status).toBe('untrusted-key');
    expect(agent.agentId).not.toBe(forged.agentId);
  });

  it('refuses the card of a revoked agent, and leaves agents the registry does not know to the client policy', async () => {
    const agent = await enrolled();
    await registry.revoke(agent.agentId);
    await expect(clientFor(createRegistryCardVerifier(registry, { ttlMs: 0 })).getCard()).rejects.toBeInstanceOf(CardSignatureInvalidError);
    const empty = createRegistry({ allowLoopback: true });
    const card = JSON.parse(agent.text);
    delete card.signatures;
    site.cardText = JSON.stringify(card);
    expect((await clientFor(createRegistryCardVerifier(empty, { ttlMs: 0 })).getCard()).name).toBe('weather');
  });
});

describe('the peer source', () => {
  it('fills a PeerPool with healthy agents of a skill and keeps it current', async () => {
    const pool = new PeerPool();
    pool.upsert('by-hand', { name: 'manual', skills: [{ id: 'forecast' }] } as never);
    const forecast = await enrolled();
    const up = { status: 'up' as const, reason: '', consecutiveFailures: 0 };
    await registry.recordHealth(forecast.id, up);
    const source = createRegistryPeerSource(registry, pool, { skill: 'forecast' });
    expect(await source.refresh()).toEqual({ added: [forecast.agentId], updated: [], removed: [] });
    expect(pool.get(forecast.agentId)?.card.name).toBe('weather');
    expect(
      pool
        .candidates({ skillId: 'forecast' } as never)
        .map((peer) => peer.id)
        .sort(),
    ).toEqual(['by-hand', forecast.agentId].sort());
    expect(await source.refresh()).toEqual({ added: [], updated: [], removed: [] });
    await registry.recordHealth(forecast.id, { status: 'non-conformant', reason: 'no A2A', consecutiveFailures: 1 });
    expect(await source.refresh()).toEqual({ added: [], updated: [], removed: [forecast.agentId] });
    await registry.recordHealth(forecast.id, up);
    expect((await source.refresh()).added).toEqual([forecast.agentId]);
    await registry.revoke(forecast.agentId);
    expect(await source.refresh()).toEqual({ added: [], updated: [], removed: [forecast.agentId] });
    expect(pool.has('by-hand')).toBe(true);
    expect(pool.has(forecast.agentId)).toBe(false);
  });

  it('reports a peer the pool refuses and keeps going', async () => {
    const agent = await enrolled();
    const onError = vi.fn();
    const pool = {
      upsert: vi.fn(() => {
        throw new Error('incompatible');
      }),
      remove: vi.fn(),
    };
    const source = createRegistryPeerSource(registry, pool, { health: ['unknown', 'up'], onError });
    expect(await source.refresh()).toEqual({ added: [], updated: [], removed: [] });
    expect(onError).toHaveBeenCalledOnce();
    expect(pool.upsert).toHaveBeenCalledWith(agent.agentId, expect.objectContaining({ name: 'weather' }));
  });
});
