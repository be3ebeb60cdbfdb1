import { encodeBase64Url, generateKeyPair } from '@a2aplane/a2a-identity';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentStateError, createRegistry, type Registry } from '../src/index.js';
import { type AgentSite, publishAgent, signedCard, startAgentSite } from './helpers/agent-site.js';

let site: AgentSite;
let registry: Registry;
const operator = { operator: 'ops' };

beforeEach(async () => {
  site = await startAgentSite();
  registry = createRegistry({ allowLoopback: true });
});
afterEach(() => site.close());

async function enrolledCount(): Promise<number> {
  return (await registry.searchAgents({ includeInactive: true, limit: 100 })).agents.length;
}

/** Replaces the protected header of the card's first signature (the signature bytes stay). */
function withHeader(text: string, header: Record<string, unknown>): string {
  const card = JSON.parse(text);
  card.signatures[0].protected = encodeBase64Url(new TextEncoder().encode(JSON.stringify(header)));
  return JSON.stringify(card);
}

describe('enrollment that verifies', () => {
  it('enrolls a signed card whose origin serves it, recording AgentID, key, skills, tags, tier and owner', async () => {
    const agent = publishAgent(site);
    const result = await registry.enroll({ card: agent.text, jwks: agent.jwks, tier: 'gold' }, operator);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.outcome).toBe('enrolled');
    expect(result.agent).toMatchObject({
      agentId: agent.agentId,
      origin: site.origin,
      cardUrl: `${site.origin}/.well-known/agent-card.json`,
      cardText: agent.text,
      tier: 'gold',
      owner: 'ops',
      status: 'active',
      skills: ['forecast'],
      tags: ['weather', 'geo'],
      keys: [{ kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(agent.key.publicKey), kid: agent.key.kid }],
      health: { status: 'unknown' },
    });
  });

  it('reads the keys from the jku on the agent origin when no JWKS is submitted', async () => {
    const agent = publishAgent(site);
    const result = await registry.enroll({ card: agent.text }, operator);
    expect(result).toMatchObject({ ok: true, agent: { agentId: agent.agentId } });
  });

  it('refuses an origin the SSRF rules refuse (loopback without allowLoopback)', async () => {
    const agent = publishAgent(site);
    const strict = createRegistry();
    expect(await strict.enroll({ card: agent.text, jwks: agent.jwks }, operator)).toMatchObject({ ok: false, reason: 'unsafe-origin' });
    expect((await strict.searchAgents({ includeInactive: true })).agents).toEqual([]);
  });
});

describe('the hostile enrollment corpus enrolls nothing, each with a typed refusal', () => {
  const cases: Array<[string, string, (site: AgentSite) => { card: string; jwks?: { keys: unknown[] } }]> = [
    [
      'a tampered card',
      'tampered',
      (s) => {
        const agent = publishAgent(s);
        const card = JSON.parse(agent.text);
        card.description = 'now malicious';
        s.cardText = JSON.stringify(card);
        return { card: s.cardText, jwks: agent.jwks };
      },
    ],
    [
      'an AgentID of another key',
      'agent-id-mismatch',
      (s) => {
        const victim = generateKeyPair('EdDSA');
        const attacker = generateKeyPair('EdDSA');
        const signed = signedCard(s.origin, victim, { signer: attacker });
        s.cardText = signed.text;
        return { card: signed.text, jwks: { keys: [...signed.jwks.keys, ...signedCard(s.origin, attacker).jwks.keys] } };
      },
    ],
    [
      'alg none',
      'unsupported-algorithm',
      (s) => {
        const agent = publishAgent(s);
        s.cardText = withHeader(agent.text, { alg: 'none', kid: agent.key.kid });
        return { card: s.cardText, jwks: agent.jwks };
      },
    ],
    [
      'an unknown crit header',
      'unsupported-algorithm',
      (s) => {
        const agent = publishAgent(s);
        s.cardText = withHeader(agent.text, { alg: 'EdDSA', typ: 'JOSE', kid: agent.key.kid, crit: ['exp'], exp: 1 });
        return { card: s.cardText, jwks: agent.jwks };
      },
    ],
    [
      'a foreign jku',
      'foreign-jku',
      (s) => {
        const key = generateKeyPair('EdDSA');
        const signed = signedCard(s.origin, key, { jku: 'https://attacker.example/jwks.json' });
        s.cardText = signed.text;
        return { card: signed.text };
      },
    ],
    [
      'an oversize card',
      'oversize',
      (s) => {
        const agent = publishAgent(s, { description: 'x'.repeat(70_000) });
        return { card: agent.text, jwks: agent.jwks };
      },
    ],
    [
      'a deeply nested card',
      'too-deep',
      (s) => {
        let nested: unknown = 'bottom';
        for (let depth = 0; depth < 40; depth++) nested = { n: nested };
        const agent = publishAgent(s, { capabilities: { extensions: [{ uri: 'urn:x', params: { nested } }] } } as never);
        return { card: agent.text, jwks: agent.jwks };
      },
    ],
    [
      'a card whose origin serves another card',
      'origin-mismatch',
      (s) => {
        const agent = publishAgent(s);
        publishAgent(s, { description: 'another agent' });
        return { card: agent.text, jwks: agent.jwks };
      },
    ],
    [
      'a card whose origin serves the same card signed by another key',
      'origin-mismatch',
      (s) => {
        const agent = publishAgent(s);
        const other = generateKeyPair('EdDSA');
        s.cardText = signedCard(s.origin, agent.key, { signer: other }).text;
        return { card: agent.text, jwks: agent.jwks };
      },
    ],
    [
      'an unsigned card',
      'no-signature',
      (s) => {
        const agent = publishAgent(s);
        const card = JSON.parse(agent.text);
        delete card.signatures;
        s.cardText = JSON.stringify(card);
        return { card: s.cardText, jwks: agent.jwks };
      },
    ],
    ['text that is not JSON', 'malformed', () => ({ card: '{"name": ' })],
  ];

  it.each(cases)('%s is refused as %s', async (_name, reason, build) => {
    const request = build(site);
    const result = await registry.enroll(request, operator);
    expect(result).toMatchObject({ ok: false, reason });
    expect(result.ok ? '' : result.detail).not.toBe('');
    expect(await enrolledCount()).toBe(0);
  });
});

describe('rotation, revocation, disable', () => {
  it('re-enrolling the same key updates the card; a new key at the same card URL rotates and keeps history', async () => {
    const first = publishAgent(site);
    const enrolled = await registry.enroll({ card: first.text, jwks: first.jwks }, operator);
    const updated = publishAgent(site, { description: 'updated' });
    // A new key: the same card URL, so this is a rotation of the same agent.
    const rotated = await registry.enroll({ card: updated.text, jwks: updated.jwks }, operator);
    expect(rotated).toMatchObject({ ok: true, outcome: 'rotated', agent: { agentId: updated.agentId, card: { description: 'updated' } } });
    if (!rotated.ok || !enrolled.ok) throw new Error('expected both enrollments to pass');
    expect(rotated.agent.id).toBe(enrolled.agent.id);
    expect(rotated.agent.keyHistory).toEqual([
      expect.objectContaining({ agentId: first.agentId, reason: 'rotated', keys: enrolled.agent.keys }),
    ]);
    // The former AgentID still finds the agent, which now holds another key.
    expect((await registry.lookupAgent(first.agentId))?.agentId).toBe(updated.agentId);
    // The retired key cannot come back.
    site.cardText = first.text;
    expect(await registry.enroll({ card: first.text, jwks: first.jwks }, operator)).toMatchObject({ ok: false, reason: 'key-retired' });
    // Same key again: an update, not a rotation.
    site.cardText = updated.text;
    expect(await registry.enroll({ card: updated.text, jwks: updated.jwks, tier: 'silver' }, operator)).toMatchObject({
      ok: true,
      outcome: 'updated',
      agent: { tier: 'silver', keyHistory: [expect.objectContaining({ agentId: first.agentId })] },
    });
  });

  it('a revoked key cannot re-enroll; a new key can, and the revoked one stays in history', async () => {
    const agent = publishAgent(site);
    await registry.enroll({ card: agent.text, jwks: agent.jwks }, operator);
    expect(await registry.revoke(agent.agentId, 'key leaked')).toMatchObject({ status: 'revoked', statusReason: 'key leaked' });
    expect(await registry.enroll({ card: agent.text, jwks: agent.jwks }, operator)).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await registry.searchAgents({})).agents).toEqual([]);
    await expect(registry.enable(agent.agentId)).rejects.toBeInstanceOf(AgentStateError);
    const fresh = publishAgent(site);
    const result = await registry.enroll({ card: fresh.text, jwks: fresh.jwks }, operator);
    expect(result).toMatchObject({
      ok: true,
      outcome: 'rotated',
      agent: { status: 'active', keyHistory: [expect.objectContaining({ agentId: agent.agentId, reason: 'revoked' })] },
    });
  });

  it('disable hides an agent from search until enable', async () => {
    const agent = publishAgent(site);
    await registry.enroll({ card: agent.text, jwks: agent.jwks }, operator);
    await registry.disable(agent.agentId);
    expect((await registry.searchAgents({ skill: 'forecast' })).agents).toEqual([]);
    await registry.enable(agent.agentId);
    expect((await registry.searchAgents({ skill: 'forecast' })).agents.map((a) => a.agentId)).toEqual([agent.agentId]);
  });
});
