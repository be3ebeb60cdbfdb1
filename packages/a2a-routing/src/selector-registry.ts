import { UnknownSelectorError } from './errors.js';
import { type PeerSelector, capabilityMatch, chainSelectors, cheapestUnderLatency, lowestLatency, roundRobin } from './selectors.js';

export type SelectorFactory = (options: Record<string, unknown>) => PeerSelector;

/** Named selector factories, so operator config can name a selector (`[routing] default_selector`). */
export class SelectorRegistry {
  private readonly factories = new Map<string, SelectorFactory>();

  register(name: string, factory: SelectorFactory): this {
    if (typeof name !== 'string' || name === '') throw new TypeError(`expected name to be a non-empty string, got ${typeof name}`);
    if (typeof factory !== 'function') throw new TypeError(`expected factory to be a function, got ${typeof factory}`);
    this.factories.set(name, factory);
    return this;
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  /** Throws `UnknownSelectorError` for a name nobody registered: a startup error, never a silent default. */
  create(name: string, options: Record<string, unknown> = {}): PeerSelector {
    const factory = this.factories.get(name);
    if (factory === undefined) throw new UnknownSelectorError(name, this.names());
    return factory(options);
  }

  names(): string[] {
    return [...this.factories.keys()];
  }
}

function numberOption(options: Record<string, unknown>, key: string): number | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new TypeError(`expected ${key} to be a number, got ${typeof value}`);
  return value;
}

/** Makes an empty selector registry; `createDefaultSelectorRegistry` has the built-in selectors. */
export function createSelectorRegistry(): SelectorRegistry {
  return new SelectorRegistry();
}

/** A registry with the four stock selectors: `cheapest_under_latency` (needs `budgetMs`), `lowest_latency`, `round_robin` (`seed`), `capability_match`. */
export function createDefaultSelectorRegistry(): SelectorRegistry {
  return createSelectorRegistry()
    .register('cheapest_under_latency', (options) => {
      const budgetMs = numberOption(options, 'budgetMs');
      if (budgetMs === undefined)
        throw new TypeError('expected budgetMs (routing.latency_budget_ms) for cheapest_under_latency, got undefined');
      return cheapestUnderLatency({ budgetMs });
    })
    .register('lowest_latency', () => lowestLatency())
    .register('round_robin', (options) => {
      const seed = numberOption(options, 'seed');
      return roundRobin(seed === undefined ? {} : { seed });
    })
    .register('capability_match', () => capabilityMatch());
}

/** The `[routing]` block as written by operators (snake_case). */
export interface RoutingSelectorConfig {
  default_selector: string;
  fallback?: string | string[];
  latency_budget_ms?: number;
  round_robin_seed?: number;
}

/** The `[routing]` block as `materializeConfig` of a2a-governance returns it. */
export interface MaterializedRoutingConfig {
  defaultSelector: string;
  fallback: string[];
  latencyBudgetMs?: number;
  roundRobinSeed?: number;
}

/**
 * Builds the selector an operator configured: the default selector, then each fallback, chained
 * (first non-empty wins). `latency_budget_ms` becomes `budgetMs` and `round_robin_seed` becomes
 * `seed` for every factory. Throws `UnknownSelectorError` for an unregistered name.
 */
export function selectorFromConfig(
  routing: RoutingSelectorConfig | MaterializedRoutingConfig,
  registry: SelectorRegistry = createDefaultSelectorRegistry(),
): PeerSelector {
  const materialized = 'defaultSelector' in routing;
  const defaultName = materialized ? routing.defaultSelector : routing.default_selector;
  if (typeof defaultName !== 'string' || defaultName === '') {
    throw new TypeError(`expected routing.default_selector to be a non-empty string, got ${typeof defaultName}`);
  }
  const rawFallback = materialized ? routing.fallback : routing.fallback;
  const fallback = rawFallback === undefined ? [] : typeof rawFallback === 'string' ? [rawFallback] : [...rawFallback];
  const budgetMs = materialized ? routing.latencyBudgetMs : routing.latency_budget_ms;
  const seed = materialized ? routing.roundRobinSeed : routing.round_robin_seed;
  const options: Record<string, unknown> = {
    ...(budgetMs === undefined ? {} : { budgetMs }),
    ...(seed === undefined ? {} : { seed }),
  };
  const selectors = [defaultName, ...fallback].map((name) => registry.create(name, options));
  return selectors.length === 1 ? selectors[0]! : chainSelectors(...selectors);
}
