import type { AgentView, RegistryReader } from '@a2aplane/a2a-registry';
import { describe, expect, it } from 'vitest';
import { parseConsoleArgs } from '../src/server/index.js';
import { createRegistryView } from '../src/server/mesh/registry.js';

const agent = (origin: string, status: AgentView['status']): AgentView =>
  ({
    id: origin,
    agentId: 'a'.repeat(64),
    cardUrl: `${origin}/.well-known/agent-card.json`,
    origin,
    cardText: '{}',
    card: { name: 'echo', description: 'echoes' },
    keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', kid: 'k' }],
    keySince: '',
    tier: '1',
    owner: 'ops',
    skills: ['echo'],
    tags: [],
    status,
    enrolledAt: '',
    updatedAt: '',
    keyHistory: [],
    health: { status: 'non-conformant', reason: 'answers HTTP 200 but not A2A', consecutiveFailures: 2, latencyMs: 12 },
  }) as unknown as AgentView;

function fakeReader(agents: AgentView[], fail = false) {
  const calls = { findByOrigin: 0 };
  const reader: RegistryReader = {
    lookupAgent: async () => undefined,
    async findByOrigin(origin) {
      calls.findByOrigin++;
      if (fail) throw new Error('unreachable');
      return agents.find((a) => a.origin === origin);
    },
    searchAgents: async () => ({ agents }),
  };
  return { reader, calls };
}

describe('the registry view', () => {
  it('lists agents with their health and conformance, without keys or card text', async () => {
    const { reader } = fakeReader([agent('http://127.0.0.1:1', 'active')]);
    const [listed] = await createRegistryView({ url: 'http://registry', reader }).list({});
    expect(listed).toEqual({
      agentId: 'a'.repeat(64),
      name: 'echo',
      description: 'echoes',
      origin: 'http://127.0.0.1:1',
      cardUrl: 'http://127.0.0.1:1/.well-known/agent-card.json',
      status: 'active',
      health: { status: 'non-conformant', reason: 'answers HTTP 200 but not A2A', latencyMs: 12 },
      tier: '1',
      skills: ['echo'],
    });
  });

  it('lets the relay reach active enrolled origins only, caches the answer, and fails closed', async () => {
    const { reader, calls } = fakeReader([agent('http://a', 'active'), agent('http://r', 'revoked')]);
    const view = createRegistryView({ url: 'http://registry', reader, cacheMs: 60_000 });
    expect(await view.isListedOrigin('http://a')).toBe(true);
    expect(await view.isListedOrigin('http://a')).toBe(true);
    expect(calls.findByOrigin).toBe(1);
    expect(await view.isListedOrigin('http://r')).toBe(false);
    expect(await view.isListedOrigin('http://elsewhere')).toBe(false);
    const down = createRegistryView({ url: 'http://registry', reader: fakeReader([agent('http://a', 'active')], true).reader });
    expect(await down.isListedOrigin('http://a')).toBe(false);
  });

  it('takes the registry from --registry, an http(s) URL only', () => {
    expect(parseConsoleArgs(['--registry', 'http://127.0.0.1:7070'])).toMatchObject({ registry: 'http://127.0.0.1:7070' });
    expect(parseConsoleArgs([])).not.toHaveProperty('registry');
    expect(() => parseConsoleArgs(['--registry', 'file:///etc/passwd'])).toThrow('--registry must be an http(s) URL');
  });
});
