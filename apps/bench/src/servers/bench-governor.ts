// The governance the governed bench servers run (defined once in lib/bench-governance.mjs).
import * as governance from '@a2aplane/a2a-governance';
import type { A2AServerOptions } from '@a2aplane/a2a-server-express';
import { benchGovernanceOf } from '../lib/bench-governance.mjs';

/** The server's `governance` option over a fresh bench Governor (with stage hooks: a traced server). */
export function benchGovernance(hooks?: governance.GovernanceHooks): NonNullable<A2AServerOptions['governance']> {
  return benchGovernanceOf(governance, hooks);
}
