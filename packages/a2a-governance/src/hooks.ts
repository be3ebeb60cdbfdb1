import type { GovernanceStage } from './events.js';

/** What a stage hook learns when a gate starts. Times are epoch milliseconds with sub-millisecond precision. */
export interface GovernanceStageStart {
  readonly stage: GovernanceStage;
  /** One id per `admit` (per dispatch): every stage of one task carries the same id. */
  readonly dispatchId: string;
  readonly caller: string;
  readonly skill: string;
  /** The incoming lineage's trace id, when there is one. */
  readonly traceId?: string;
  /** The task's estimated cost in USD (given, or from `estimateCost`), when known. */
  readonly estimatedCostUsd?: number;
  readonly startTime: number;
}

export interface GovernanceStageFinish extends GovernanceStageStart {
  /** `error`: the gate threw something other than a refusal (a bug, a malformed input). */
  readonly decision: 'accepted' | 'rejected' | 'error';
  /** The refusal's short reason (as in the `rejected` event), or `error`. */
  readonly reason?: string;
  readonly error?: unknown;
  readonly endTime: number;
  readonly durationMs: number;
}

/**
 * Stage start/finish hooks of a `Governor` (for tracing: one span per stage, grouped by
 * `dispatchId`). Without hooks the governor makes no id, reads no clock and builds no object for
 * them. A hook that throws is ignored: observability must not change the outcome of a gate.
 */
export interface GovernanceHooks {
  onStageStart?(stage: GovernanceStageStart): void;
  onStageFinish?(stage: GovernanceStageFinish): void;
  /**
   * Asked once per dispatch, before its first stage: `false` makes that dispatch call no hook (and
   * make no id, read no clock, build no object), as if the governor had none. For an
   * instrumentation that knows nothing would record the stages (no tracing SDK registered). A
   * throw counts as `true`.
   */
  enabled?(): boolean;
}

export function checkHooks(hooks: GovernanceHooks | undefined): void {
  if (hooks === undefined) return;
  if (hooks === null || typeof hooks !== 'object')
    throw new TypeError(`expected hooks to be an object, got ${hooks === null ? 'null' : typeof hooks}`);
  for (const name of ['onStageStart', 'onStageFinish', 'enabled'] as const) {
    if (hooks[name] !== undefined && typeof hooks[name] !== 'function') {
      throw new TypeError(`expected hooks.${name} to be a function, got ${typeof hooks[name]}`);
    }
  }
}

const now = (): number => performance.timeOrigin + performance.now();

/** Fixed-shape records (no object spreads): a hooked dispatch builds one per stage start and finish. */
class StageStart implements GovernanceStageStart {
  constructor(
    readonly stage: GovernanceStage,
    readonly dispatchId: string,
    readonly caller: string,
    readonly skill: string,
    readonly traceId: string | undefined,
    readonly estimatedCostUsd: number | undefined,
    readonly startTime: number,
  ) {}
}

class StageFinish implements GovernanceStageFinish {
  constructor(
    readonly stage: GovernanceStage,
    readonly dispatchId: string,
    readonly caller: string,
    readonly skill: string,
    readonly traceId: string | undefined,
    readonly estimatedCostUsd: number | undefined,
    readonly startTime: number,
    readonly decision: 'accepted' | 'rejected' | 'error',
    readonly reason: string | undefined,
    readonly error: unknown,
    readonly endTime: number,
    readonly durationMs: number,
  ) {}
}

/** Whether a dispatch calls its hooks (`enabled`, when given, says; a throwing one does not silence them). */
export function hooksEnabled(hooks: GovernanceHooks): boolean {
  if (hooks.enabled === undefined) return true;
  try {
    return hooks.enabled() !== false;
  } catch {
    return true;
  }
}

/** The hook calls of one dispatch; made only when the governor has hooks and they are enabled. */
export class StageTrace {
  readonly dispatchId: string = globalThis.crypto.randomUUID();

  constructor(
    private readonly hooks: GovernanceHooks,
    private readonly caller: string,
    private readonly skill: string,
    private readonly traceId: string | undefined,
    private readonly estimatedCostUsd: number | undefined,
  ) {}

  /** When the running stage started: stages of one dispatch run one at a time. */
  private startTime = 0;

  start(stage: GovernanceStage): void {
    const startTime = now();
    this.startTime = startTime;
    const hook = this.hooks.onStageStart;
    if (hook !== undefined) {
      try {
        hook.call(
          this.hooks,
          new StageStart(stage, this.dispatchId, this.caller, this.skill, this.traceId, this.estimatedCostUsd, startTime),
        );
      } catch {
        // ignored, see GovernanceHooks
      }
    }
  }

  /** Ends the stage `start` began. */
  finish(stage: GovernanceStage, decision: 'accepted' | 'rejected' | 'error', reason?: string, error?: unknown): void {
    const hook = this.hooks.onStageFinish;
    if (hook === undefined) return;
    const { startTime } = this;
    const endTime = now();
    const info = new StageFinish(
      stage,
      this.dispatchId,
      this.caller,
      this.skill,
      this.traceId,
      this.estimatedCostUsd,
      startTime,
      decision,
      reason,
      error,
      endTime,
      Math.max(0, endTime - startTime),
    );
    try {
      hook.call(this.hooks, info);
    } catch {
      // ignored, see GovernanceHooks
    }
  }
}
