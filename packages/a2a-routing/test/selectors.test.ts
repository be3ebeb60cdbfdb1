import { describe, expect, it } from 'vitest';
import {
  type PeerSelector,
  type PeerSnapshot,
  SelectorRegistry,
  UnknownSelectorError,
  capabilityMatch,
  chainSelectors,
  cheapestUnderLatency,
  createDefaultSelectorRegistry,
  lowestLatency,
  roundRobin,
  selectorFromConfig,
} from '../src/index.js';
import { card } from './fixtures.js';

// Three peers with different cost / latency / load (ADR-159 M3 routing_selectors).
const fast: PeerSnapshot = {
  id: 'fast',
  card: card({ streaming: true }),
  ewmaLatencyMs: 50,
  ewmaCostUsd: 0.09,
  openTasks: 4,
  failureRate: 0.2,
};
const cheap: PeerSnapshot = { id: 'cheap', card: card(), ewmaLatencyMs: 3000, ewmaCostUsd: 0.01, openTasks: 0, failureRate: 0 };
const balanced: PeerSnapshot = {
  id: 'balanced',
  card: card({ streaming: true }),
  ewmaLatencyMs: 800,
  ewmaCostUsd: 0.03,
  openTasks: 1,
  failureRate: 0.05,
};
const peers = [fast, cheap, balanced];
const task = { skillId: 'analysis' };

describe('stock selectors (ADR-159 r2 "Routing strategy")', () => {
  it('CheapestUnderLatency: lowest cost whose latency is under the budget', () => {
    expect(cheapestUnderLatency({ budgetMs: 2000 }).select(task, peers)?.id).toBe('balanced');
    expect(cheapestUnderLatency({ budgetMs: 5000 }).select(task, peers)?.id).toBe('cheap');
    expect(cheapestUnderLatency({ budgetMs: 10 }).select(task, peers)).toBeUndefined();
  });

  it('CheapestUnderLatency honours a tighter task deadline', () => {
    expect(cheapestUnderLatency({ budgetMs: 5000 }).select({ ...task, deadlineMs: 100 }, peers)?.id).toBe('fast');
  });

  it('LowestLatency: minimum latency, costs be damned; ties go to fewer open tasks', () => {
    expect(lowestLatency().select(task, peers)?.id).toBe('fast');
    const twin = { ...fast, id: 'twin', openTasks: 0 };
    expect(lowestLatency().select(task, [fast, twin])?.id).toBe('twin');
    expect(lowestLatency().select(task, [])).toBeUndefined();
  });

  it('RoundRobin: deterministic rotation by seed', () => {
    const sequence = (seed: number) => {
      const selector = roundRobin({ seed });
      return Array.from({ length: 4 }, () => selector.select(task, peers)?.id);
    };
    expect(sequence(0)).toEqual(['balanced', 'cheap', 'fast', 'balanced']);
    expect(sequence(1)).toEqual(['cheap', 'fast', 'balanced', 'cheap']);
    expect(sequence(1)).toEqual(sequence(1));
    // Pool order does not change the rotation.
    const reversed = roundRobin({ seed: 0 });
    expect(reversed.select(task, [...peers].reverse())?.id).toBe('balanced');
  });

  it('CapabilityMatch: a peer with every required capability, tiebreak by failure rate', () => {
    expect(capabilityMatch().select({ ...task, requiredCapabilities: ['streaming'] }, peers)?.id).toBe('balanced');
    expect(capabilityMatch().select(task, peers)?.id).toBe('cheap');
    expect(capabilityMatch().select({ ...task, requiredCapabilities: ['pushNotifications'] }, peers)).toBeUndefined();
  });

  it('ChainedSelector: first non-empty wins', () => {
    const never: PeerSelector = { name: 'never', select: () => undefined };
    const chained = chainSelectors(never, cheapestUnderLatency({ budgetMs: 10 }), lowestLatency());
    expect(chained.select(task, peers)?.id).toBe('fast');
    expect(chained.name).toBe('chain(never,cheapest_under_latency,lowest_latency)');
    expect(chainSelectors(never).select(task, peers)).toBeUndefined();
  });
});

describe('SelectorRegistry', () => {
  it('has the four stock names', () => {
    expect(createDefaultSelectorRegistry().names().sort()).toEqual([
      'capability_match',
      'cheapest_under_latency',
      'lowest_latency',
      'round_robin',
    ]);
  });

  it('an unknown name is a startup error (UnknownSelectorError)', () => {
    const registry = createDefaultSelectorRegistry();
    let caught: unknown;
    try {
      registry.create('fastest_possible');
    } catch (error) {
      caught = error;
    }
    expect(UnknownSelectorError.isInstance(caught)).toBe(true);
    expect((caught as UnknownSelectorError).selector).toBe('fastest_possible');
    expect((caught as Error).message).toContain('lowest_latency');
    expect(() => selectorFromConfig({ default_selector: 'lowest_latency', fallback: 'nope' })).toThrow(UnknownSelectorError);
  });

  it('custom factories receive options', () => {
    const registry = new SelectorRegistry().register('sla_tier', (options) => ({
      name: `sla_${String(options.tier)}`,
      select: () => undefined,
    }));
    expect(registry.create('sla_tier', { tier: 'gold' }).name).toBe('sla_gold');
  });

  it('selectorFromConfig chains default then fallback, passing latency_budget_ms', () => {
    const selector = selectorFromConfig({ default_selector: 'cheapest_under_latency', fallback: 'lowest_latency', latency_budget_ms: 10 });
    expect(selector.select(task, peers)?.id).toBe('fast');
    const materialized = selectorFromConfig({ defaultSelector: 'cheapest_under_latency', fallback: [], latencyBudgetMs: 2000 });
    expect(materialized.select(task, peers)?.id).toBe('balanced');
    expect(() => selectorFromConfig({ default_selector: 'cheapest_under_latency' })).toThrow(TypeError);
  });
});
