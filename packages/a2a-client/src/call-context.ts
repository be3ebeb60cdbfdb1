// The chunk a call with a `context` loads on demand (decision 0044): the a2a-types lineage writer
// and traceparent, built into this package (tsup `noExternal`) so that the chunk imports nothing.
import { traceparentFor } from '@a2aplane/a2a-types/task-context';

export { withTaskContext } from '@a2aplane/a2a-types/task-context';

/**
 * Adds a `traceparent` with a fresh span id on the lineage's trace to `headers`, unless the call's
 * own headers carry one (an instrumentation's active span wins).
 */
export function addTraceparent(headers: Record<string, string>, callHeaders: Record<string, string> | undefined, traceId: string): void {
  if (callHeaders !== undefined && Object.keys(callHeaders).some((name) => name.toLowerCase() === 'traceparent')) return;
  const traceparent = traceparentFor(traceId);
  if (traceparent) headers.traceparent = traceparent;
}
