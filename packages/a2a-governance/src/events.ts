import type { A2AError } from '@a2aplane/a2a-types';

/** The gates of the dispatch pipeline that accept or reject a task, in pipeline order. */
export type GovernanceStage = 'authorize' | 'budget' | 'recursion' | 'selector' | 'policy';

export type GovernanceEvent =
  | { type: 'accepted'; stage: GovernanceStage; caller?: string; skill?: string; traceId?: string }
  | {
      type: 'rejected';
      stage: GovernanceStage;
      /** Short machine reason: `unverified`, `allowlist`, `rules`, `usd`, `tokens`, `tasks`, `queue_full`, `depth`, `revisit`, `allowedSkills`, ... */
      reason: string;
      error: A2AError;
      caller?: string;
      skill?: string;
      traceId?: string;
    }
  | { type: 'aborted'; stage: 'policy' | 'budget'; reason: string; error: A2AError; caller?: string; skill?: string; traceId?: string }
  | { type: 'metered'; traceId?: string; rootAgentId?: string; usd: number; tokens: number };

export interface GovernanceEvents {
  /** Adds a listener; returns a function that removes it. */
  on(listener: (event: GovernanceEvent) => void): () => void;
  emit(event: GovernanceEvent): void;
  /**
   * Counters: `accepted.<stage>`, `rejected.<stage>`, `rejected.<stage>.<reason>`,
   * `aborted.<stage>.<reason>` (`policy`, `budget`) and `metered`.
   */
  counts(): Record<string, number>;
}

type CountedType = 'accepted' | 'rejected' | 'aborted';

/** `<type>.<stage>` counter keys of the known stages, built once. */
const STAGE_KEYS = new Map<string, Readonly<Record<CountedType, string>>>(
  (['authorize', 'budget', 'recursion', 'selector', 'policy'] as const).map((stage) => [
    stage,
    { accepted: `accepted.${stage}`, rejected: `rejected.${stage}`, aborted: `aborted.${stage}` },
  ]),
);

function stageKey(type: CountedType, stage: string): string {
  return STAGE_KEYS.get(stage)?.[type] ?? `${type}.${stage}`;
}

/**
 * An event bus with counters. A listener that throws is ignored so that it cannot break a gate.
 * Every event is counted; listeners are called only when there are some, and counter keys are
 * built once per (stage, reason), not per event.
 */
export function createGovernanceEvents(): GovernanceEvents {
  const listeners = new Set<(event: GovernanceEvent) => void>();
  const counters = new Map<string, number>();
  /** `<prefix>.<reason>` keys by prefix, then reason. */
  const reasonKeys = new Map<string, Map<string, string>>();
  const bump = (key: string): void => {
    counters.set(key, (counters.get(key) ?? 0) + 1);
  };
  const reasonKey = (prefix: string, reason: string): string => {
    let byReason = reasonKeys.get(prefix);
    if (byReason === undefined) {
      byReason = new Map();
      reasonKeys.set(prefix, byReason);
    }
    let key = byReason.get(reason);
    if (key === undefined) {
      key = `${prefix}.${reason}`;
      // Reasons come from this package's gates, but bound the cache in case a caller emits its own.
      if (byReason.size < 256) byReason.set(reason, key);
    }
    return key;
  };
  return {
    on(listener) {
      if (typeof listener !== 'function') throw new TypeError(`expected listener to be a function, got ${typeof listener}`);
      const wrapped = (event: GovernanceEvent): void => listener(event);
      listeners.add(wrapped);
      return () => {
        listeners.delete(wrapped);
      };
    },
    emit(event) {
      switch (event.type) {
        case 'accepted':
          bump(stageKey('accepted', event.stage));
          break;
        case 'rejected': {
          const prefix = stageKey('rejected', event.stage);
          bump(prefix);
          bump(reasonKey(prefix, event.reason));
          break;
        }
        case 'aborted':
          bump(reasonKey(stageKey('aborted', event.stage), event.reason));
          break;
        case 'metered':
          bump('metered');
          break;
      }
      if (listeners.size === 0) return;
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // Observability must not change the outcome of a gate.
        }
      }
    },
    counts() {
      return Object.fromEntries(counters);
    },
  };
}
