import { describe, expect, it } from 'vitest';
import { PeerPool, createHealthCheckLoop } from '../src/index.js';
import { card } from './fixtures.js';

describe('PeerPool.candidates (ADR-159 r2: pool filtered to peers advertising the skill)', () => {
  const pool = new PeerPool();
  pool.upsert('text-only', card({ skills: [{ id: 'analysis' }], defaultInputModes: ['text/plain'] }));
  pool.upsert('images', card({ skills: [{ id: 'analysis', inputModes: ['image/png', 'text/plain'] }], streaming: true }));
  pool.upsert('other-skill', card({ skills: [{ id: 'summarize' }], streaming: true }));

  const ids = (task: Parameters<PeerPool['candidates']>[0]) => pool.candidates(task).map((peer) => peer.id);

  it('keeps only peers advertising the skill', () => {
    expect(ids({ skillId: 'analysis' })).toEqual(['text-only', 'images']);
    expect(ids({ skillId: 'summarize' })).toEqual(['other-skill']);
    expect(ids({ skillId: 'missing' })).toEqual([]);
  });

  it('uses skill.inputModes, else the card defaults, case-insensitively', () => {
    expect(ids({ skillId: 'analysis', inputModes: ['image/png'] })).toEqual(['images']);
    expect(ids({ skillId: 'analysis', inputModes: ['TEXT/plain'] })).toEqual(['text-only', 'images']);
  });

  it('requires every listed capability', () => {
    expect(ids({ skillId: 'analysis', requiredCapabilities: ['streaming'] })).toEqual(['images']);
    expect(ids({ skillId: 'analysis', requiredCapabilities: ['streaming', 'pushNotifications'] })).toEqual([]);
  });
});

describe('PeerPool statistics and breaker', () => {
  it('tracks EWMA latency/cost, open tasks and failure rate', () => {
    const pool = new PeerPool({ ewmaAlpha: 0.5 });
    pool.upsert('a', card());
    expect(pool.recordStart('a')).toBe(true);
    expect(pool.get('a')?.openTasks).toBe(1);
    pool.recordOutcome('a', { ok: true, latencyMs: 100, costUsd: 0.02 });
    pool.recordStart('a');
    pool.recordOutcome('a', { ok: false, latencyMs: 300 });
    const snapshot = pool.get('a')!;
    expect(snapshot.ewmaLatencyMs).toBe(200);
    expect(snapshot.ewmaCostUsd).toBe(0.02);
    expect(snapshot.failureRate).toBe(0.5);
    expect(snapshot.openTasks).toBe(0);
  });

  it('an open peer leaves candidates() and returns for one probe after the cooldown', () => {
    let now = 0;
    const pool = new PeerPool({ clock: () => now, breaker: { failureThreshold: 2, cooldownMs: 500 } });
    pool.upsert('a', card());
    pool.upsert('b', card());
    for (let i = 0; i < 2; i++) {
      pool.recordStart('a');
      pool.recordOutcome('a', { ok: false, latencyMs: 10 });
    }
    expect(pool.breakerState('a')).toBe('open');
    expect(pool.candidates({ skillId: 'analysis' }).map((p) => p.id)).toEqual(['b']);
    expect(pool.all()).toHaveLength(2);
    now = 500;
    expect(pool.candidates({ skillId: 'analysis' }).map((p) => p.id)).toEqual(['a', 'b']);
    expect(pool.recordStart('a')).toBe(true);
    // The probe is taken: no second request until it ends.
    expect(pool.candidates({ skillId: 'analysis' }).map((p) => p.id)).toEqual(['b']);
    expect(pool.recordStart('a')).toBe(false);
    pool.recordOutcome('a', { ok: true, latencyMs: 10 });
    expect(pool.breakerState('a')).toBe('closed');
  });

  it('upsert keeps statistics; remove drops the peer; bad input throws TypeError', () => {
    const pool = new PeerPool();
    pool.upsert('a', card(), { ewmaLatencyMs: 40, ewmaCostUsd: 0.1 });
    pool.upsert('a', card({ skills: [{ id: 'new' }] }));
    expect(pool.get('a')?.ewmaLatencyMs).toBe(40);
    expect(pool.get('a')?.card.skills[0]?.id).toBe('new');
    pool.remove('a');
    expect(pool.get('a')).toBeUndefined();
    expect(() => pool.upsert('', card())).toThrow(TypeError);
    expect(() => new PeerPool({ ewmaAlpha: 0 })).toThrow(RangeError);
  });
});

describe('createHealthCheckLoop', () => {
  function fakeTimers() {
    const pending = new Map<number, () => void>();
    let next = 1;
    return {
      pending,
      timers: {
        setTimeout: (callback: () => void) => {
          const id = next++;
          pending.set(id, callback);
          return id;
        },
        clearTimeout: (handle: never) => {
          pending.delete(handle as number);
        },
      },
      async fire() {
        const entries = [...pending.entries()];
        pending.clear();
        for (const [, callback] of entries) callback();
        for (let i = 0; i < 10; i++) await Promise.resolve();
      },
    };
  }

  it('refreshes cards, feeds the breaker, and stop() leaves no timer', async () => {
    let now = 0;
    const pool = new PeerPool({ clock: () => now, breaker: { failureThreshold: 1, cooldownMs: 100 } });
    pool.upsert('good', card());
    pool.upsert('bad', card());
    const fake = fakeTimers();
    let healthy = false;
    const loop = createHealthCheckLoop(pool, {
      intervalMs: 1000,
      timers: fake.timers,
      fetchCard: async (id) => {
        if (id === 'bad' && !healthy) throw new Error('503');
        return card({ skills: [{ id: 'analysis' }, { id: `refreshed-${id}` }] });
      },
    });
    expect(fake.pending.size).toBe(1);
    await fake.fire();
    expect(pool.get('good')?.card.skills.map((s) => s.id)).toContain('refreshed-good');
    expect(pool.breakerState('bad')).toBe('open');
    expect(fake.pending.size).toBe(1);

    healthy = true;
    now = 100;
    await fake.fire();
    expect(pool.breakerState('bad')).toBe('closed');

    loop.stop();
    expect(fake.pending.size).toBe(0);
  });

  it('stop() during a round schedules nothing afterwards', async () => {
    const pool = new PeerPool();
    pool.upsert('a', card());
    const fake = fakeTimers();
    let release: () => void = () => {};
    const loop = createHealthCheckLoop(pool, {
      intervalMs: 10,
      timers: fake.timers,
      fetchCard: () =>
        new Promise((resolve) => {
          release = () => resolve(card());
        }),
    });
    await fake.fire();
    loop.stop();
    release();
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(fake.pending.size).toBe(0);
  });
});

describe('PeerPool negotiation on discovery', () => {
  // A negotiator in the shape of rulake-artifacts' artifactVersionNegotiator: the peer's version list rides on its description here.
  const negotiate = ({ card: peerCard }: { id: string; card: ReturnType<typeof card> }) =>
    peerCard.description.includes('v1')
      ? ({ ok: true, terms: { artifactKindVersion: '1' } } as const)
      : ({ ok: false, reason: 'no common artifact kind version', metadata: { local: '1', remote: '2' } } as const);

  it('records agreed terms on the snapshot and refuses an incompatible card with IncompatiblePeerError', async () => {
    const { IncompatiblePeerError } = await import('../src/index.js');
    const pool = new PeerPool({ negotiate });
    pool.upsert('good', { ...card(), description: 'speaks v1' });
    expect(pool.candidates({ skillId: 'analysis' })[0]?.terms).toEqual({ artifactKindVersion: '1' });
    let error: unknown;
    try {
      pool.upsert('bad', { ...card(), description: 'speaks v2' });
    } catch (caught) {
      error = caught;
    }
    expect(IncompatiblePeerError.isInstance(error)).toBe(true);
    expect((error as InstanceType<typeof IncompatiblePeerError>).metadata).toEqual({ local: '1', remote: '2', agentId: 'bad' });
    expect(pool.has('bad')).toBe(false);
    // A known peer whose refreshed card is incompatible leaves the pool.
    expect(() => pool.upsert('good', { ...card(), description: 'now v2 only' })).toThrow(/incompatible/);
    expect(pool.has('good')).toBe(false);
  });

  it('the health check drops a peer whose refreshed card the negotiator refuses, and reports it', async () => {
    const pool = new PeerPool({ negotiate });
    pool.upsert('p', { ...card(), description: 'speaks v1' });
    const errors: unknown[] = [];
    const loop = createHealthCheckLoop(pool, {
      intervalMs: 60_000,
      fetchCard: async () => ({ ...card(), description: 'v2 now' }),
      onError: (_id, error) => errors.push(error),
    });
    await loop.runOnce();
    loop.stop();
    expect(pool.has('p')).toBe(false);
    expect(errors).toHaveLength(1);
  });
});

describe('the shared circuit breaker', () => {
  it('routing re-exports the a2a-types breaker (one state machine for routing and the client)', async () => {
    const routing = await import('../src/index.js');
    const types = await import('@a2aplane/a2a-types');
    expect(routing.CircuitBreaker).toBe(types.CircuitBreaker);
    expect(routing.DEFAULT_FAILURE_THRESHOLD).toBe(types.DEFAULT_FAILURE_THRESHOLD);
  });
});
