/** The v0.3 translators of a2a-types. */
export type V03Translators = typeof import('@a2aplane/a2a-types/v0_3');

let loading: Promise<V03Translators> | undefined;

/**
 * Loads the v0.3 translators on first use. Only clients that meet a v0.3 peer (a legacy card, or
 * `protocolVersion: '0.3'`) need them, so bundlers split them out of the client's main chunk.
 */
export function loadV03Translators(): Promise<V03Translators> {
  loading ??= import('@a2aplane/a2a-types/v0_3');
  return loading;
}
