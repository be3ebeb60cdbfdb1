import {
  type Artifact,
  type Message,
  type Part,
  RUVECTOR_KEYS,
  type Struct,
  readRuvectorMetadata,
  withRuvectorMetadata,
} from '@a2aplane/a2a-types';
import { type ArtifactKind, type Capability, fromArtifact, isCapability, toArtifact } from './artifact-kind.js';
import { describeValue } from '@a2aplane/a2a-types';
import { HandOffError, WitnessNotFoundError } from './errors.js';
import { type WitnessStore, assertGrant } from './store.js';
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
  // Checked before anything is written to the tier.
  assertStore(store, ['put']);
  if (typeof vectors !== 'object' || vectors === null || !(Symbol.iterator in vectors || Symbol.asyncIterator in vectors)) {
    throw new TypeError(`expected vectors to be an Iterable or AsyncIterable of Float32Array, got ${describeValue(vectors)}`);
  }
  if (typeof dim !== 'number' || !Number.isInteger(dim)) throw new TypeError(`expected dim to be an integer, got ${describeValue(dim)}`);
  if (options.capabilities !== undefined) assertCapabilities(options.capabilities, 'options.capabilities');
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

export interface ResolveHandOffOptions {
  /**
   * Capabilities the receiver needs beyond `read` (e.g. `['search']` before it searches the
   * shard, `['write']` before it writes back); each must be in the artifact's grant, else
   * `WitnessAccessDeniedError` before any byte moves.
   */
  require?: Capability[];
}

/**
 * Resolve a received hand-off artifact against the receiver's store. The grant (`read` plus
 * `options.require`) and the presence of the witness are checked before this returns; the
 * payload's witness is checked as the vectors stream, and a mismatch throws
 * WitnessVerificationError after the last chunk.
 */
export async function resolveHandOff(
  store: WitnessStore,
  artifact: Artifact,
  options: ResolveHandOffOptions = {},
): Promise<{ vectors: AsyncIterable<Float32Array>; witness: string; capabilities: Capability[] }> {
  assertStore(store, ['stream', 'has']);
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`expected options to be an object, got ${describeValue(options)}`);
  if (options.require !== undefined) assertCapabilities(options.require, 'options.require');
  const read = fromArtifact(artifact);
  if (read.kind !== 'rulake_witness') {
    throw new HandOffError('not-a-witness-artifact', 'artifact is not a readable RuLakeWitness artifact', read.note);
  }
  const grant = { witness: read.witness, capabilities: read.capabilities };
  assertGrant(grant, 'read');
  for (const capability of options.require ?? []) assertGrant(grant, capability);
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
    throw new TypeError(`expected artifact to be an Artifact with parts, got ${describeValue(artifact)}`);
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

function assertStore(store: unknown, methods: Array<keyof WitnessStore>): asserts store is WitnessStore {
  if (
    typeof store !== 'object' ||
    store === null ||
    !methods.every((name) => typeof (store as Record<string, unknown>)[name] === 'function')
  ) {
    throw new TypeError(`expected store to be a WitnessStore (${methods.join(', ')}), got ${describeValue(store)}`);
  }
}

function assertCapabilities(value: unknown, what: string): asserts value is Capability[] {
  if (!Array.isArray(value) || !value.every(isCapability)) {
    throw new TypeError(`expected ${what} to be an array of 'read' | 'write' | 'search', got ${describeValue(value)}`);
  }
}
