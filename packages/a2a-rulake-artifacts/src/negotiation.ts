import { type AgentCard, describeValue } from '@a2aplane/a2a-types';
import { readArtifactKindVersions } from './memory-extension.js';
import { negotiateArtifactKindVersion, SUPPORTED_ARTIFACT_KIND_VERSIONS } from './versioning.js';

export interface ArtifactVersionNegotiatorOptions {
  /** The typed-artifact versions this agent reads and writes. Default `SUPPORTED_ARTIFACT_KIND_VERSIONS`. */
  supported?: readonly string[];
  /**
   * Refuse a peer whose card advertises no `artifact_kind_versions_supported` at all. Default
   * false: such a peer exchanges no typed artifacts, so there is nothing to disagree on.
   */
  requireAdvertised?: boolean;
}

/** The verdict shape of a2a-routing's `PeerNegotiation` (structural: this package does not depend on routing). */
export type ArtifactVersionNegotiation =
  | { ok: true; terms?: { artifactKindVersion: string } }
  | { ok: false; reason: string; metadata: Record<string, string> };

/**
 * A negotiator for a2a-routing's `PeerPool({ negotiate })`: on discovery it picks the highest
 * typed-artifact version both sides support (`negotiateArtifactKindVersion`) and records it as the
 * `artifactKindVersion` term of the peer; a peer that advertises versions but none in common is
 * refused (the pool throws `IncompatiblePeerError`).
 */
export function artifactVersionNegotiator(
  options: ArtifactVersionNegotiatorOptions = {},
): (peer: { id: string; card: AgentCard }) => ArtifactVersionNegotiation {
  const supported = [...(options.supported ?? SUPPORTED_ARTIFACT_KIND_VERSIONS)];
  if (!supported.every((version) => typeof version === 'string') || supported.length === 0) {
    throw new TypeError(`expected supported to be a non-empty array of strings, got ${describeValue(options.supported)}`);
  }
  const requireAdvertised = options.requireAdvertised ?? false;
  return ({ card }) => {
    const advertised = readArtifactKindVersions(card);
    if (advertised === undefined) {
      return requireAdvertised
        ? {
            ok: false,
            reason: 'the card advertises no artifact_kind_versions_supported',
            metadata: { local: supported.join(','), remote: '' },
          }
        : { ok: true };
    }
    const version = negotiateArtifactKindVersion(supported, advertised);
    if (version === undefined) {
      return {
        ok: false,
        reason: `no common artifact kind version (this agent: ${supported.join(', ')}; peer: ${advertised.join(', ') || 'none'})`,
        metadata: { local: supported.join(','), remote: advertised.join(',').slice(0, 256) },
      };
    }
    return { ok: true, terms: { artifactKindVersion: version } };
  };
}
