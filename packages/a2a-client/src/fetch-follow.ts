import type { FollowerSignal } from './fetch-signal.js';

type GlobalFetch = typeof globalThis.fetch;
type FetchSignalModule = typeof import('./fetch-signal.js');

/** The global fetch function the probe found to follow a FollowerSignal, and the module that makes them. */
let following: { fetch: GlobalFetch; module: FetchSignalModule } | undefined;
let probing: Promise<boolean> | undefined;

const isNode = (): boolean => (globalThis as { process?: { release?: { name?: unknown } } }).process?.release?.name === 'node';

/**
 * Loads the FollowerSignal chunk and probes `fetch` with it (fetch-signal.ts). Node only: a browser
 * refuses the object, and its `data:` fetch might be reported by a CSP. A chunk that cannot load
 * answers `false`; the probe never throws.
 */
async function probeOnce(fetch: GlobalFetch): Promise<boolean> {
  if (!isNode() || typeof fetch !== 'function') return false;
  const module = await import('./fetch-signal.js').catch(() => undefined);
  if (!module || !(await module.probe(fetch))) return false;
  following = { fetch, module };
  return true;
}

/**
 * Whether the current global fetch takes a FollowerSignal (decision 0053). The first question starts
 * the probe and answers `false`; once the probe has passed, `true` for as long as the global fetch is
 * the very function probed (a fetch installed later, a stub say, gets real signals).
 */
export function globalFetchFollows(): boolean {
  if (following !== undefined) return globalThis.fetch === following.fetch;
  probing ??= probeOnce(globalThis.fetch);
  return false;
}

/** A new FollowerSignal: only after `globalFetchFollows()` answered `true`. */
export function createFollower(): FollowerSignal {
  return new (following as { module: FetchSignalModule }).module.FollowerSignal();
}

/** The probe's answer (starting it if need be): for tests and the bench. */
export function probeGlobalFetch(): Promise<boolean> {
  globalFetchFollows();
  return probing ?? Promise.resolve(true);
}
