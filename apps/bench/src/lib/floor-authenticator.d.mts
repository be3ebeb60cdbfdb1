import type { Authenticator } from '@a2aplane/a2a-server-express';

/** BENCH ONLY: the floor of a verified caller (decision 0054), see floor-authenticator.mjs. */
export declare function createFloorAuthenticator(options: { agentId: string; key: Uint8Array }): Authenticator & {
  /** How many requests' digest or MAC did not match (the floor accepts them all the same). */
  readonly counts: { readonly digestMismatch: number; readonly macMismatch: number };
};
