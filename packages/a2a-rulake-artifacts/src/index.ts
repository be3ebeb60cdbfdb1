export {
  ARTIFACT_KIND_VERSION,
  ARTIFACT_KIND_WIRE_NAMES,
  CAPABILITIES,
  RVLAKE_WITNESS_KEY,
  SUPPORTED_ARTIFACT_KIND_VERSIONS,
  fromArtifact,
  isCapability,
  toArtifact,
  validateStructured,
} from './artifact-kind.js';
export type {
  ArtifactKind,
  ArtifactKindName,
  ArtifactKindWireName,
  Capability,
  FromArtifactOptions,
  ReadResult,
  StructuredValidator,
  ToArtifactOptions,
} from './artifact-kind.js';
export { checkArtifactVersion, negotiateArtifactKindVersion, sameArtifactKindVersion } from './versioning.js';
export { artifactVersionNegotiator } from './negotiation.js';
export type { ArtifactVersionNegotiation, ArtifactVersionNegotiatorOptions } from './negotiation.js';
export type { ArtifactVersionCheck } from './versioning.js';
export { WITNESS_BYTES, WITNESS_FORMAT_VERSION, computeWitness, createWitnessHasher, isWitness, verifyWitness } from './witness.js';
export type { WitnessHasher } from './witness.js';
export { assertGrant, createInMemoryWitnessStore } from './store.js';
export type { StoredPayload, WitnessGrant, WitnessStore } from './store.js';
export { HandOffError, VectorCodecError, WitnessAccessDeniedError, WitnessNotFoundError, WitnessVerificationError } from './errors.js';
export type { HandOffErrorReason, VectorCodecErrorCode } from './errors.js';
export {
  MAX_BLOCK_ROWS,
  MAX_VECTOR_DIM,
  VECTOR_FORMAT_MAGIC,
  VECTOR_FORMAT_VERSION,
  VECTOR_HEADER_BYTES,
  decodeVectors,
  encodeVectors,
} from './vector-codec.js';
export { artifactCardParams, memoryExtensionParams, readArtifactKindVersions, readMemoryParams } from './memory-extension.js';
export type { MemoryExtensionParamsOptions, RuLakeMemoryParams } from './memory-extension.js';
export { HANDOFF_ARTIFACT_ID_KEY, createHandOffMessage, handOffVectors, readHandOffMessage, resolveHandOff } from './handoff.js';
export type {
  CreateHandOffMessageOptions,
  HandOffVectorsOptions,
  HandOffVectorsResult,
  ResolveHandOffOptions,
  RuLakeWitnessKind,
} from './handoff.js';
