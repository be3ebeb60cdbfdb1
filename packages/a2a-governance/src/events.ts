import type { A2AError } from '@a2aplane/a2a-types';

/** The gates of the dispatch pipeline that accept or reject a task. */
export type GovernanceStage = 'budget' | 'recursion' | 'selector' | 'policy';

export type GovernanceEvent =
  | { type: 'accepted'; stage: GovernanceStage; caller?: string; skill?: string; traceId?: string }
  | {
      type: 'rejected';
      stage: GovernanceStage;
      /** Short machine reason: `usd`, `tokens`, `tasks`, `queue_full`, `depth`, `revisit`, `allowedSkills`, ... */
      reason: string;
      error: A2AError;
      caller?: string;
      skill?: string;
      traceId?: string;
    }
  | { type: 'aborted'; stage: 'policy'; reason: string; error: A2AError; caller?: string; skill?: string; traceId?: string }
  | { type: 'metered'; traceId?: string; rootAgentId?: string; usd: number; tokens: number };

export interface GovernanceEvents {
  /** Adds a listener; returns a function that removes it. */
  on(listener: (event: GovernanceEvent) => void): () => void;
  emit(event: GovernanceEvent): void;
  /**
   * Counters: `accepted.<stage>`, `rejected.<stage>`, `rejected.<stage>.<reason>`,
   * `aborted.policy.<reason>` and `metered`.
   */
  counts(): Record<string, number>;
}

/** An event bus with counters. A listener that throws is ignored so that it cannot break a gate. */
export function createGovernanceEvents(): GovernanceEvents {
  const listeners = new Set<(event: GovernanceEvent) => void>();
  const counters = new Map<string, number>();
  const bump = (key: string): void => {
    counters.set(key, (counters.get(key) ?? 0) + 1);
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
          bump(`accepted.${event.stage}`);
          break;
        case 'rejected':
          bump(`rejected.${event.stage}`);
          bump(`rejected.${event.stage}.${event.reason}`);
          break;
        case 'aborted':
          bump(`aborted.${event.stage}.${event.reason}`);
          break;
        case 'metered':
          bump('metered');
          break;
      }
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
