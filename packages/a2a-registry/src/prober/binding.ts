import type { OutboundOptions } from '../core/fetch-text.js';

/** What one probe needs besides the agent: bounds, the in-flight counter, the clock, the signer. */
export interface ExchangeOptions extends OutboundOptions {
  timeoutMs: number;
  degradedLatencyMs: number;
  maxCardBytes: number;
  /** Wraps every request, so the prober can count (and bound) what is in flight. */
  track: <T>(request: () => Promise<T>) => Promise<T>;
  clock: () => number;
  /** Headers that authenticate one probe call (e.g. RFC 9421 `signer.sign`), for agents that serve only known callers. */
  sign?: (request: { method: string; url: string; body?: string }) => Promise<Record<string, string>>;
}

/**
 * `auth`: the binding answered with an A2A authentication refusal (401/403), so TaskNotFound could
 * not be checked. `unprobed`: the registry cannot probe this binding (gRPC without its package).
 */
export type BindingVerdict = { binding: string; ok: boolean; down: boolean; auth?: boolean; unprobed?: boolean; detail: string };
