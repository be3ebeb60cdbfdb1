import { type Artifact, type Message, type Part, RUVECTOR_KEYS, type Struct, readRuvectorMetadata, withRuvectorMetadata } from '@a2aplane/a2a-types';
import { type ArtifactKind, type Capability, fromArtifact, toArtifact } from './artifact-kind.js';
import { HandOffError, WitnessNotFoundError } from './errors.js';
import { type WitnessStore, assertReadGrant } from './store.js';
import { decodeVectors, encodeCountingVectors } from './vector-codec.js';

export type RuLakeWitnessKind = Extract<ArtifactKind, { kind: 'rulake_witness' }>;

export interface HandOffVectorsOptions {
  /** What the receiver may do with the witness; defaults to `['read']`. */
  capabilities?: Capability[];
  artifactId?: string;
  name?: string;
  description?: string;
}

export interface HandOffVectorsResult {
  artifact: Artifact;
  kind: RuLakeWitnessKind;
  /** Bytes stored under the witness (the encoded RVEC payload). */
  payloadBytes: number;
  /** Vectors encoded. */
  count: number;
}

/**
 * Store vectors once in a shared tier and describe them with a RuLakeWitness artifact whose size
 * does not depend on the number of vectors (ADR-159 acceptance test 2).
 */
export async function handOffVectors(
  store: WitnessStore,
  vectors: Iterable<Float32Array> | AsyncIterable<Float32Array>,
  dim: number,
  options: HandOffVectorsOptions = {},
): Promise<HandOffVectorsResult> {
  const progress = { count: 0 };
  const stored = await store.put(encodeCountingVectors(vectors, dim, progress));
  const kind: RuLakeWitnessKind = {
    kind: 'rulake_witness',
    witness: stored.witness,
    dataRef: stored.dataRef,
    capabilities: options.capabilities ?? ['read'],
  };
  const artifact = toArtifact(kind, { artifactId: options.artifactId, name: options.name, description: options.description });
  return { artifact, kind, payloadBytes: stored.size, count: progress.count };
}

/**
 * Resolve a received hand-off artifact against the receiver's store. The grant and the presence
 * of the witness are checked before this returns; the payload's witness is checked as the vectors
 * stream, and a mismatch throws WitnessVerificationError after the last chunk.
 */
export async function resolveHandOff(
  store: WitnessStore,
  artifact: Artifact,
): Promise<{ vectors: AsyncIterable<Float32Array>; witness: string; capabilities: Capability[] }> {
  const read = fromArtifact(artifact);
  if (read.kind !== 'rulake_witness') {
    throw new HandOffError('not-a-witness-artifact', 'artifact is not a readable RuLakeWitness artifact', read.note);
  }
  const grant = { witness: read.witness, capabilities: read.capabilities };
  assertReadGrant(grant);
  if (!(await store.has(read.witness))) throw new WitnessNotFoundError(read.witness);
  return { vectors: decodeVectors(store.stream(grant)), witness: read.witness, capabilities: read.capabilities };
}

/** `message.metadata.ruvector.artifact_id`: the artifact whose parts a hand-off message carries. */
export const HANDOFF_ARTIFACT_ID_KEY = 'artifact_id';

export interface CreateHandOffMessageOptions {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  /** An instruction for the receiving agent, sent as a text part before the artifact's parts. */
  text?: string;
  metadata?: Struct;
}

/**
 * The Message a client sends to hand an artifact to a peer: the artifact's parts (each names its
 * kind in `part.metadata.ruvector`) plus the kind, version and artifact id in `message.metadata.ruvector`.
 */
export function createHandOffMessage(artifact: Artifact, options: CreateHandOffMessageOptions = {}): Message {
  if (typeof artifact !== 'object' || artifact === null || !Array.isArray(artifact.parts)) {
    throw new TypeError('expected artifact to be an Artifact');
  }
  const ruvector = readRuvectorMetadata(artifact.metadata) ?? {};
  const parts: Part[] = options.text === undefined ? [] : [{ text: options.text }];
  parts.push(...artifact.parts);
  const message: Message = {
    messageId: options.messageId ?? globalThis.crypto.randomUUID(),
    role: 'ROLE_USER',
    parts,
    metadata: withRuvectorMetadata(options.metadata, {
      [RUVECTOR_KEYS.artifactKind]: ruvector[RUVECTOR_KEYS.artifactKind],
      [RUVECTOR_KEYS.artifactKindVersion]: ruvector[RUVECTOR_KEYS.artifactKindVersion],
      [HANDOFF_ARTIFACT_ID_KEY]: artifact.artifactId,
    }),
  };
  if (options.contextId !== undefined) message.contextId = options.contextId;
  if (options.taskId !== undefined) message.taskId = options.taskId;
  return message;
}

/**
 * The artifact a hand-off message carries, rebuilt from its parts that name a kind, or `undefined`
 * when the message carries none. Feed the result to {@link fromArtifact} or {@link resolveHandOff}.
 */
export function readHandOffMessage(message: Message): Artifact | undefined {
  if (typeof message !== 'object' || message === null || !Array.isArray(message.parts)) return undefined;
  const ruvector = readRuvectorMetadata(message.metadata);
  const parts = message.parts.filter((part) => readRuvectorMetadata(part?.metadata)?.[RUVECTOR_KEYS.artifactKind] !== undefined);
  if (parts.length === 0) return undefined;
  const first = readRuvectorMetadata(parts[0]!.metadata)!;
  const id = ruvector?.[HANDOFF_ARTIFACT_ID_KEY];
  return {
    artifactId: typeof id === 'string' && id.length > 0 ? id : message.messageId,
    parts,
    metadata: withRuvectorMetadata(undefined, {
      [RUVECTOR_KEYS.artifactKind]: ruvector?.[RUVECTOR_KEYS.artifactKind] ?? first[RUVECTOR_KEYS.artifactKind],
      [RUVECTOR_KEYS.artifactKindVersion]: ruvector?.[RUVECTOR_KEYS.artifactKindVersion] ?? first[RUVECTOR_KEYS.artifactKindVersion],
    }),
  };
}
