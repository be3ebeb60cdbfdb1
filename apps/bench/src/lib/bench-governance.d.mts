import type * as governance from '@a2aplane/a2a-governance';
import type { A2AServerOptions } from '@a2aplane/a2a-server-express';

/** The server's `governance` option over a fresh bench Governor built from `g`'s classes. */
export declare function benchGovernanceOf(
  g: typeof governance,
  hooks?: governance.GovernanceHooks,
): NonNullable<A2AServerOptions['governance']>;
