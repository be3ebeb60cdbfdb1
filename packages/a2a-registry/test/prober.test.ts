import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpRequestSigner, generateKeyPair } from '@a2aplane/a2a-identity';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInMemoryRegistryStore, createProber, createRegistry, type Registry, type RegistryStore } from '../src/index.js';
import { sampleAgentRecord } from '../src/testing/index.js';
import { startA2AAgent, type TestAgent } from './helpers/a2a-agent.js';
import { type AgentSite, publishAgent, startAgentSite } from './helpers/agent-site.js';

let store: RegistryStore;
let registry: Registry;
const closers: Array<() => Promise<void>> = [];
const operator = { operator: 'ops' };

beforeEach(() => {
  store = createInMemoryRegistryStore();
  registry = createRegistry({ store, allowLoopback: true });
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function agent(): Promise<TestAgent> {
  const started = await startA2AAgent();
  closers.push(started.close);
  return started;
}

async function site(): Promise<AgentSite> {
  const started = await startAgentSite();
  closers.push(started.close);
  return started;
}

async function countingServer(delayMs = 0) {
  let requests = 0;
  const server: Server = createServer((_req, res) => {
    requests++;
    setTimeout(() => res.writeHead(404).end(), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('the conformance prober', () => {
  it('marks an A2A agent up after a signed card and a TaskNotFound over JSONRPC and HTTP+JSON', async () => {
    const a2a = await agent();
    const enrolled = await registry.enroll({ card: a2a.cardText }, operator);
    expect(enrolled.ok).toBe(true);
    const prober = createProber(registry, { allowLoopback: true });
    expect(await prober.runOnce()).toEqual({ probed: 1, skipped: 0 });
    const view = await registry.lookupAgent(a2a.agentId);
    expect(view?.health).toMatchObject({ status: 'up', reason: '', consecutiveFailures: 0 });
    expect(view?.health.lastSuccessAt).toBe(view?.health.checkedAt);
    expect(view?.health.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('marks an agent that serves only signed callers degraded, and up when the prober signs as a trusted caller', async () => {
    const prober = generateKeyPair('EdDSA');
    const guarded = await startA2AAgent({ callerKeys: [prober] });
    closers.push(guarded.close);
    await registry.enroll({ card: guarded.cardText }, operator);
    const view = await registry.lookupAgent(guarded.agentId);
    const anonymous = await createProber(registry, { allowLoopback: true }).probe(view as NonNullable<typeof view>);
    expect(anonymous.status).toBe('degraded');
    expect(anonymous.reason).toContain('authentication required');
    const signer = createHttpRequestSigner({ key: prober });
    const trusted = await createProber(registry, { allowLoopback: true, signRequest: (request) => signer.sign(request) }).probe(
      view as NonNullable<typeof view>,
    );
    expect(trusted).toMatchObject({ status: 'up', reason: '' });
  });

  it('marks a server that answers HTTP but not A2A non-conformant, with the reason', async () => {
    const plain = await site();
    plain.handle = (req, res) => {
      if (!req.url?.startsWith('/a2a/')) return false;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hello</h1>');
      return true;
    };
    const published = publishAgent(plain);
    await registry.enroll({ card: published.text, jwks: published.jwks }, operator);
    await createProber(registry, { allowLoopback: true }).runOnce();
    const health = (await registry.lookupAgent(published.agentId))?.health;
    expect(health?.status).toBe('non-conformant');
    expect(health?.reason).toContain('expected -32001 TaskNotFound');
  });

  it('marks an agent whose card no longer verifies with the enrolled key non-conformant', async () => {
    const plain = await site();
    const published = publishAgent(plain);
    await registry.enroll({ card: published.text, jwks: published.jwks }, operator);
    publishAgent(plain); // the origin now serves a card signed by another key
    await createProber(registry, { allowLoopback: true }).runOnce();
    expect((await registry.lookupAgent(published.agentId))?.health).toMatchObject({
      status: 'non-conformant',
      reason: 'card signature by the enrolled key: untrusted-key',
    });
  });

  it('marks an unreachable agent down and backs off before probing it again', async () => {
    const a2a = await agent();
    await registry.enroll({ card: a2a.cardText }, operator);
    await a2a.close();
    let now = 1_000_000;
    const prober = createProber(registry, { allowLoopback: true, intervalMs: 1000, clock: () => now });
    await prober.runOnce();
    expect((await registry.lookupAgent(a2a.agentId))?.health).toMatchObject({ status: 'down', consecutiveFailures: 1 });
    now += 999;
    expect(await prober.runOnce()).toEqual({ probed: 0, skipped: 1 });
    now += 1;
    expect(await prober.runOnce()).toEqual({ probed: 1, skipped: 0 });
    expect((await registry.lookupAgent(a2a.agentId))?.health.consecutiveFailures).toBe(2);
    // Second failure: the wait doubles.
    now += 1999;
    expect(await prober.runOnce()).toEqual({ probed: 0, skipped: 1 });
    now += 1;
    expect(await prober.runOnce()).toEqual({ probed: 1, skipped: 0 });
  });

  it('never has more than `concurrency` requests in flight, however many agents are enrolled', async () => {
    const slow = await countingServer(20);
    for (let index = 0; index < 24; index++) {
      await store.put(sampleAgentRecord({ origin: slow.origin, cardUrl: `${slow.origin}/cards/${index}.json` }), null);
    }
    const prober = createProber(registry, { allowLoopback: true, concurrency: 3 });
    expect(await prober.runOnce()).toEqual({ probed: 24, skipped: 0 });
    expect(slow.requests()).toBe(24);
    expect(prober.maxInFlight).toBe(3);
    expect(prober.inFlight).toBe(0);
  });

  it('never requests an interface off the enrolled origin, and refuses an origin the SSRF rules refuse', async () => {
    const elsewhere = await countingServer();
    const home = await site();
    home.handle = () => false;
    const published = publishAgent(home, {
      supportedInterfaces: [
        { url: `${home.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${elsewhere.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    });
    await registry.enroll({ card: published.text, jwks: published.jwks }, operator);
    await createProber(registry, { allowLoopback: true }).runOnce();
    expect(elsewhere.requests()).toBe(0);
    // Without allowLoopback the same agent is not even fetched.
    const strict = createProber(registry);
    const view = await registry.lookupAgent(published.agentId);
    const health = await strict.probe(view as NonNullable<typeof view>);
    expect(health.status).toBe('down');
    expect(health.reason).toContain('loopback');
  });
});
