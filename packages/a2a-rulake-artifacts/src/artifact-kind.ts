import {
  type Artifact,
  describeValue,
  type Part,
  RUVECTOR_KEYS,
  type Struct,
  readRuvectorMetadata,
  withRuvectorMetadata,
} from '@a2aplane/a2a-types';
import { ARTIFACT_KIND_VERSION, SUPPORTED_ARTIFACT_KIND_VERSIONS, checkArtifactVersion } from './versioning.js';
import { isWitness } from './witness.js';

export { ARTIFACT_KIND_VERSION, SUPPORTED_ARTIFACT_KIND_VERSIONS } from './versioning.js';

/** A scoped grant on a witness (ADR-159 r2): read, write or search. */
export type Capability = 'read' | 'write' | 'search';
export const CAPABILITIES: readonly Capability[] = ['read', 'write', 'search'];

/** Whether `value` is one of the capabilities ADR-159 defines. */
export function isCapability(value: unknown): value is Capability {
  return value === 'read' || value === 'write' || value === 'search';
}

/**
 * The typed layer over the spec's generic `Artifact.parts` (ADR-159 r2). The wire format stays a
 * plain spec Artifact; `metadata.ruvector.artifact_kind` names the kind for peers that read it.
 */
export type ArtifactKind =
  | { kind: 'text'; text: string }
  | { kind: 'structured_json'; value: unknown; schema?: string }
  | { kind: 'vector_ref'; backend: string; collection: string; witness: string; dim: number; count: number }
  | { kind: 'rulake_witness'; witness: string; dataRef: string; capabilities: Capability[] }
  | { kind: 'raw'; parts: Part[] };

export type ArtifactKindName = ArtifactKind['kind'];

/** Wire names of each kind, spelled as the ADR's Rust enum variants. */
export const ARTIFACT_KIND_WIRE_NAMES = {
  text: 'Text',
  structured_json: 'StructuredJson',
  vector_ref: 'VectorRef',
  rulake_witness: 'RuLakeWitness',
  raw: 'Raw',
} as const satisfies Record<ArtifactKindName, string>;

export type ArtifactKindWireName = (typeof ARTIFACT_KIND_WIRE_NAMES)[ArtifactKindName];

/** `part.metadata.ruvector.rvlake_witness`: the witness of a RuLakeWitness data part (ADR-159 r2). */
export const RVLAKE_WITNESS_KEY = 'rvlake_witness';

const JSON_MEDIA_TYPE = 'application/json';

export interface ToArtifactOptions {
  artifactId?: string;
  name?: string;
  description?: string;
  /** The `artifact_kind_version` to write; defaults to {@link ARTIFACT_KIND_VERSION}. */
  version?: string;
}

function kindMetadata(kind: ArtifactKindName, version: string): Record<string, unknown> {
  return { [RUVECTOR_KEYS.artifactKind]: ARTIFACT_KIND_WIRE_NAMES[kind], [RUVECTOR_KEYS.artifactKindVersion]: version };
}

function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TypeError(`expected ${what} to be a string, got ${describeValue(value)}`);
  return value;
}

function requireCount(value: unknown, what: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new TypeError(`expected ${what} to be an integer, got ${describeValue(value)}`);
  }
  if (value < min) throw new RangeError(`expected ${what} >= ${min}, got ${value}`);
  return value;
}

function requireWitness(value: unknown, what: string): string {
  if (!isWitness(value)) throw new TypeError(`expected ${what} to be 64 lowercase hex characters, got ${describeValue(value)}`);
  return value;
}

function newArtifactId(): string {
  return globalThis.crypto.randomUUID();
}

/** Build the spec Parts of a kind; every typed part also names its kind so it reads alone. */
function partsOf(kind: ArtifactKind, version: string): Part[] {
  const marker = (extra: Record<string, unknown> = {}): Struct =>
    withRuvectorMetadata(undefined, { ...kindMetadata(kind.kind, version), ...extra });
  switch (kind.kind) {
    case 'text':
      return [{ text: requireString(kind.text, 'text'), metadata: marker() }];
    case 'structured_json': {
      if (kind.value === undefined) throw new TypeError('expected value to be a JSON value, got undefined');
      const metadata = marker();
      if (kind.schema !== undefined) metadata.schema = requireString(kind.schema, 'schema');
      return [{ data: kind.value, mediaType: JSON_MEDIA_TYPE, metadata }];
    }
    case 'vector_ref':
      return [
        {
          data: {
            backend: requireString(kind.backend, 'backend'),
            collection: requireString(kind.collection, 'collection'),
            witness: requireWitness(kind.witness, 'witness'),
            dim: requireCount(kind.dim, 'dim', 1),
            count: requireCount(kind.count, 'count', 0),
          },
          mediaType: JSON_MEDIA_TYPE,
          metadata: marker(),
        },
      ];
    case 'rulake_witness': {
      const witness = requireWitness(kind.witness, 'witness');
      if (!Array.isArray(kind.capabilities) || !kind.capabilities.every(isCapability)) {
        throw new TypeError(`expected capabilities to be an array of 'read' | 'write' | 'search', got ${describeValue(kind.capabilities)}`);
      }
      return [
        {
          data: { witness, data_ref: requireString(kind.dataRef, 'dataRef'), capabilities: [...new Set(kind.capabilities)] },
          mediaType: JSON_MEDIA_TYPE,
          metadata: marker({ [RVLAKE_WITNESS_KEY]: witness }),
        },
      ];
    }
    case 'raw':
      if (!Array.isArray(kind.parts) || kind.parts.length === 0) {
        throw new RangeError(
          `expected parts to be a non-empty array of Parts, got ${Array.isArray(kind.parts) ? 'an empty array' : describeValue(kind.parts)}`,
        );
      }
      return kind.parts.map((part) => ({ ...part }));
    default:
      throw new TypeError(`expected an ArtifactKind, got kind ${JSON.stringify((kind as { kind?: unknown }).kind)}`);
  }
}

/** A spec Artifact carrying `kind`, tagged with `metadata.ruvector.artifact_kind` and its version. */
export function toArtifact(kind: ArtifactKind, options: ToArtifactOptions = {}): Artifact {
  if (typeof kind !== 'object' || kind === null) throw new TypeError(`expected an ArtifactKind, got ${describeValue(kind)}`);
  const version = options.version === undefined ? ARTIFACT_KIND_VERSION : requireString(options.version, 'version');
  const artifact: Artifact = {
    artifactId: options.artifactId === undefined ? newArtifactId() : requireString(options.artifactId, 'artifactId'),
    parts: partsOf(kind, version),
    metadata: withRuvectorMetadata(undefined, kindMetadata(kind.kind, version)),
  };
  if (options.name !== undefined) artifact.name = requireString(options.name, 'name');
  if (options.description !== undefined) artifact.description = requireString(options.description, 'description');
  return artifact;
}

/** A zod schema (or anything with `safeParse`) or an ajv-compiled validate function. */
export type StructuredValidator =
  | { safeParse(value: unknown): { success: boolean; error?: unknown } }
  | ((value: unknown) => boolean | { valid: boolean; errors?: unknown });

/** Check a StructuredJson value against its schema's validator. A throwing validator counts as a failure. */
export function validateStructured(
  kind: Extract<ArtifactKind, { kind: 'structured_json' }>,
  validator: StructuredValidator,
): { ok: true } | { ok: false; errors: unknown } {
  try {
    if (typeof validator === 'function') {
      const result = validator(kind.value);
      if (typeof result === 'boolean') {
        // ajv reports the reasons on the function itself.
        return result ? { ok: true } : { ok: false, errors: (validator as { errors?: unknown }).errors ?? null };
      }
      return result.valid ? { ok: true } : { ok: false, errors: result.errors ?? null };
    }
    if (typeof validator === 'object' && validator !== null && typeof validator.safeParse === 'function') {
      const result = validator.safeParse(kind.value);
      return result.success ? { ok: true } : { ok: false, errors: result.error ?? null };
    }
  } catch (error) {
    return { ok: false, errors: error };
  }
  throw new TypeError(`expected a validator function or an object with safeParse, got ${describeValue(validator)}`);
}

/** What a receiver read: a kind, the version it was written at, and why it fell back to Raw if it did. */
export type ReadResult = ArtifactKind & { version?: string; note?: string };

export interface FromArtifactOptions {
  /** Versions this receiver reads; defaults to {@link SUPPORTED_ARTIFACT_KIND_VERSIONS}. */
  supportedVersions?: readonly string[];
  /** Read artifacts written at a lower, unlisted version (ADR-159 r3 `accept_lower_version_artifacts`). */
  acceptLowerVersionArtifacts?: boolean;
  /** Validators keyed by StructuredJson `schema`; a value that fails its validator is read as Raw. */
  validators?: Record<string, StructuredValidator>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Decoded = { ok: true; kind: ArtifactKind; note?: string } | { ok: false; note: string };

function single(parts: unknown[], field: 'text' | 'data'): Record<string, unknown> | undefined {
  if (parts.length !== 1) return undefined;
  const [part] = parts;
  return isRecord(part) && part[field] !== undefined ? part : undefined;
}

function decode(wireKind: string, parts: unknown[], options: FromArtifactOptions): Decoded {
  switch (wireKind) {
    case 'Text': {
      const part = single(parts, 'text');
      if (!part || typeof part.text !== 'string') return { ok: false, note: 'Text artifact must have exactly one text part' };
      return { ok: true, kind: { kind: 'text', text: part.text } };
    }
    case 'StructuredJson': {
      const part = single(parts, 'data');
      if (!part) return { ok: false, note: 'StructuredJson artifact must have exactly one data part' };
      const schema = isRecord(part.metadata) ? part.metadata.schema : undefined;
      if (schema !== undefined && typeof schema !== 'string') return { ok: false, note: 'StructuredJson schema must be a string' };
      const kind: Extract<ArtifactKind, { kind: 'structured_json' }> =
        schema === undefined ? { kind: 'structured_json', value: part.data } : { kind: 'structured_json', value: part.data, schema };
      const validator = schema === undefined ? undefined : options.validators?.[schema];
      if (validator) {
        const check = validateStructured(kind, validator);
        if (!check.ok) return { ok: false, note: `StructuredJson value does not match schema ${schema}` };
      }
      return { ok: true, kind };
    }
    case 'VectorRef': {
      const data = single(parts, 'data')?.data;
      if (!isRecord(data)) return { ok: false, note: 'VectorRef artifact must have exactly one object data part' };
      const { backend, collection, witness, dim, count } = data;
      if (
        typeof backend !== 'string' ||
        typeof collection !== 'string' ||
        !isWitness(witness) ||
        typeof dim !== 'number' ||
        !Number.isSafeInteger(dim) ||
        dim < 1 ||
        typeof count !== 'number' ||
        !Number.isSafeInteger(count) ||
        count < 0
      ) {
        return { ok: false, note: 'VectorRef payload is malformed' };
      }
      return { ok: true, kind: { kind: 'vector_ref', backend, collection, witness, dim, count } };
    }
    case 'RuLakeWitness': {
      const part = single(parts, 'data');
      const data = part?.data;
      if (!part || !isRecord(data)) return { ok: false, note: 'RuLakeWitness artifact must have exactly one object data part' };
      const { witness, data_ref: dataRef, capabilities } = data;
      if (!isWitness(witness) || typeof dataRef !== 'string' || !Array.isArray(capabilities)) {
        return { ok: false, note: 'RuLakeWitness payload is malformed' };
      }
      const marked = readRuvectorMetadata(isRecord(part.metadata) ? part.metadata : undefined)?.[RVLAKE_WITNESS_KEY];
      if (marked !== undefined && marked !== witness)
        return { ok: false, note: 'RuLakeWitness rvlake_witness does not match data.witness' };
      // Least privilege: a capability this reader does not know grants nothing.
      const known = [...new Set(capabilities.filter(isCapability))];
      const kind: ArtifactKind = { kind: 'rulake_witness', witness, dataRef, capabilities: known };
      return known.length === capabilities.length ? { ok: true, kind } : { ok: true, kind, note: 'unknown capabilities were dropped' };
    }
    case 'Raw':
      return { ok: true, kind: { kind: 'raw', parts: parts as Part[] } };
    default:
      return { ok: false, note: `unknown artifact_kind ${JSON.stringify(wireKind)}` };
  }
}

/**
 * Read the typed kind of an artifact received from a peer. Never throws: an artifact without the
 * typed layer, of an unknown kind or version, or with a malformed payload is read as Raw with a note.
 */
export function fromArtifact(artifact: Artifact, options: FromArtifactOptions = {}): ReadResult {
  const parts: unknown[] = isRecord(artifact) && Array.isArray(artifact.parts) ? artifact.parts : [];
  const raw = (note: string, version?: string): ReadResult => {
    const result: ReadResult = { kind: 'raw', parts: parts as Part[], note };
    if (version !== undefined) result.version = version;
    return result;
  };
  if (!isRecord(artifact)) return raw('not an artifact object');
  const firstPart = parts[0];
  const ruvector =
    readRuvectorMetadata(isRecord(artifact.metadata) ? artifact.metadata : undefined) ??
    readRuvectorMetadata(isRecord(firstPart) && isRecord(firstPart.metadata) ? firstPart.metadata : undefined);
  const wireKind = ruvector?.[RUVECTOR_KEYS.artifactKind];
  if (wireKind === undefined) return raw('no metadata.ruvector.artifact_kind; read as Raw');
  if (typeof wireKind !== 'string') return raw('artifact_kind is not a string');
  const version = ruvector?.[RUVECTOR_KEYS.artifactKindVersion];
  if (typeof version !== 'string') return raw(`${wireKind} artifact has no artifact_kind_version`);
  const check = checkArtifactVersion(version, options.supportedVersions ?? SUPPORTED_ARTIFACT_KIND_VERSIONS, options);
  if (!check.ok) return raw(`artifact_kind_version ${JSON.stringify(version)} not readable: ${check.reason}`, version);
  const decoded = decode(wireKind, parts, options);
  if (!decoded.ok) return raw(decoded.note, version);
  const result: ReadResult = { ...decoded.kind, version };
  if (decoded.note !== undefined) result.note = decoded.note;
  return result;
}
