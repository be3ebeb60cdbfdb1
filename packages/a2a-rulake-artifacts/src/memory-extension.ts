import { type AgentCard, readRuvectorCardParams } from '@a2aplane/a2a-types';
import { type Capability, isCapability } from './artifact-kind.js';
import { describeValue } from '@a2aplane/a2a-types';
import { SUPPORTED_ARTIFACT_KIND_VERSIONS } from './versioning.js';
import { WITNESS_FORMAT_VERSION } from './witness.js';

/** `params.memory` of the ruvector card extension (ADR-159 open question 2, resolved in M1). */
export interface RuLakeMemoryParams {
  type: 'rvlake';
  shard?: string;
  capabilities?: Capability[];
  witness_format_version?: number;
}

export interface MemoryExtensionParamsOptions {
  /** The shared tier, e.g. `gs://bucket/prod/` or a `file://` directory URL. */
  shard?: string;
  /** What peers may be granted on witnesses from this tier; defaults to `['read']`. */
  capabilities?: Capability[];
  /** Defaults to {@link WITNESS_FORMAT_VERSION}. */
  witnessFormatVersion?: number;
}

/** The `memory` object an agent advertises under its ruvector card extension params. */
export function memoryExtensionParams(options: MemoryExtensionParamsOptions = {}): RuLakeMemoryParams {
  const capabilities = options.capabilities ?? ['read'];
  if (!Array.isArray(capabilities) || !capabilities.every(isCapability)) {
    throw new TypeError(`expected capabilities to be an array of 'read' | 'write' | 'search', got ${describeValue(capabilities)}`);
  }
  if (options.shard !== undefined && typeof options.shard !== 'string') {
    throw new TypeError(`expected shard to be a string, got ${typeof options.shard}`);
  }
  const version = options.witnessFormatVersion ?? WITNESS_FORMAT_VERSION;
  if (!Number.isInteger(version) || version < 1)
    throw new RangeError(`expected witnessFormatVersion to be an integer >= 1, got ${describeValue(version)}`);
  const params: RuLakeMemoryParams = { type: 'rvlake' };
  if (options.shard !== undefined) params.shard = options.shard;
  params.capabilities = [...new Set(capabilities)];
  params.witness_format_version = version;
  return params;
}

/**
 * The card-extension params this package owns: `memory` and `artifact_kind_versions_supported`.
 * Merge them into the `params` of the `RUVECTOR_EXTENSION_URI` extension with the other ruvector keys.
 */
export function artifactCardParams(options: MemoryExtensionParamsOptions & { artifactKindVersions?: readonly string[] } = {}): {
  memory: RuLakeMemoryParams;
  artifact_kind_versions_supported: string[];
} {
  return {
    memory: memoryExtensionParams(options),
    artifact_kind_versions_supported: [...(options.artifactKindVersions ?? SUPPORTED_ARTIFACT_KIND_VERSIONS)],
  };
}

/** The peer's ruLake memory tier, or `undefined` when the card advertises none (or not of type `rvlake`). */
export function readMemoryParams(card: AgentCard): RuLakeMemoryParams | undefined {
  const memory = readRuvectorCardParams(card)?.memory;
  if (memory?.type !== 'rvlake') return undefined;
  const params: RuLakeMemoryParams = { type: 'rvlake' };
  if (memory.shard !== undefined) params.shard = memory.shard;
  // Capabilities this package does not know grant nothing.
  if (memory.capabilities !== undefined) params.capabilities = memory.capabilities.filter(isCapability);
  if (memory.witness_format_version !== undefined) params.witness_format_version = memory.witness_format_version;
  return params;
}

/** The typed-artifact versions the peer reads (`artifact_kind_versions_supported`), if advertised. */
export function readArtifactKindVersions(card: AgentCard): string[] | undefined {
  return readRuvectorCardParams(card)?.artifact_kind_versions_supported;
}
