import type { Struct } from './model/primitives.js';

// The zod-free half of `ruvector.ts`: names and metadata helpers that clients use on every call.

/**
 * Control-plane data travels where the spec allows vendor data, under the `ruvector` namespace
 * that ADR-159 documents, so that rvAgent peers can read it. `docs/wire-format.md` lists every key.
 */
export const RUVECTOR_NAMESPACE = 'ruvector';

/** URI of the `AgentExtension` that carries card-level control-plane facts in its `params`. */
export const RUVECTOR_EXTENSION_URI = 'urn:a2aplane:extension:ruvector:v1';

/** Keys inside `metadata.ruvector` of messages and artifacts. */
export const RUVECTOR_KEYS = {
  /** `message.metadata.ruvector.context`: the TaskContext (lineage) of the sender. */
  context: 'context',
  /** `artifact.metadata.ruvector.artifact_kind`: the typed-artifact kind. */
  artifactKind: 'artifact_kind',
  /** `artifact.metadata.ruvector.artifact_kind_version`: the version of that kind's schema. */
  artifactKindVersion: 'artifact_kind_version',
} as const;

/** The `ruvector` object inside a metadata struct, when it is an object. */
export function readRuvectorMetadata(metadata: Struct | undefined): Record<string, unknown> | undefined {
  const value = metadata?.[RUVECTOR_NAMESPACE];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A copy of `metadata` with `entries` merged into its `ruvector` object; other keys are kept. */
export function withRuvectorMetadata(metadata: Struct | undefined, entries: Record<string, unknown>): Struct {
  return { ...metadata, [RUVECTOR_NAMESPACE]: { ...readRuvectorMetadata(metadata), ...entries } };
}
