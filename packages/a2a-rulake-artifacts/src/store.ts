import { type Capability, isCapability } from './artifact-kind.js';
import { describeValue } from '@a2aplane/a2a-types';
import { WitnessAccessDeniedError, WitnessNotFoundError, WitnessVerificationError } from './errors.js';
import { computeWitness, createWitnessHasher, isWitness } from './witness.js';

/** A witness plus the capabilities its holder was granted (ADR-159 r2 scoped memory grants). */
export interface WitnessGrant {
  witness: string;
  capabilities: readonly Capability[];
}

export interface StoredPayload {
  witness: string;
  /** Where the payload lives, e.g. `file:///…` or `memory://…`; informative, reads go by witness. */
  dataRef: string;
  size: number;
}

/** Content-addressed payload storage: payloads are put once and read back by their witness. */
export interface WitnessStore {
  put(payload: Uint8Array | AsyncIterable<Uint8Array>): Promise<StoredPayload>;
  /** The verified payload. Needs `read`; throws WitnessAccessDeniedError, WitnessNotFoundError or WitnessVerificationError. */
  get(grant: WitnessGrant): Promise<Uint8Array>;
  /** The payload in chunks; the witness is checked after the last chunk and a mismatch throws then. */
  stream(grant: WitnessGrant): AsyncIterable<Uint8Array>;
  has(witness: string): Promise<boolean>;
}

/**
 * The access check every WitnessStore (and anything else acting on a witness) runs before it
 * touches a payload (ADR-159 r2: no grant, no access). A malformed grant object is a programmer
 * error (`TypeError`); a grant without `capability` throws `WitnessAccessDeniedError`; a malformed
 * witness string throws `WitnessNotFoundError`, so it never reaches a path or a key.
 */
export function assertGrant(grant: WitnessGrant, capability: Capability): void {
  if (!isCapability(capability))
    throw new TypeError(`expected capability to be 'read' | 'write' | 'search', got ${describeValue(capability)}`);
  if (typeof grant !== 'object' || grant === null || typeof grant.witness !== 'string' || !Array.isArray(grant.capabilities)) {
    throw new TypeError(`expected grant to be { witness: string, capabilities: Capability[] }, got ${describeValue(grant)}`);
  }
  if (!grant.capabilities.includes(capability)) throw new WitnessAccessDeniedError(grant.witness, capability);
  if (!isWitness(grant.witness)) throw new WitnessNotFoundError(grant.witness);
}

/** {@link assertGrant} for `read`, the capability every store read needs. */
export function assertReadGrant(grant: WitnessGrant): void {
  assertGrant(grant, 'read');
}

/** Normalise a put payload into an async sequence of byte chunks. */
export async function* payloadChunks(payload: Uint8Array | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (payload instanceof Uint8Array) {
    yield payload;
    return;
  }
  if (typeof payload !== 'object' || payload === null || !(Symbol.asyncIterator in payload)) {
    throw new TypeError(`expected payload to be a Uint8Array or an AsyncIterable<Uint8Array>, got ${describeValue(payload)}`);
  }
  for await (const chunk of payload) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError(`expected every payload chunk to be a Uint8Array, got ${describeValue(chunk)}`);
    yield chunk;
  }
}

const MEMORY_CHUNK = 64 * 1024;

/** A WitnessStore held in this process; useful for tests and single-process demos. */
export function createInMemoryWitnessStore(): WitnessStore {
  const entries = new Map<string, Uint8Array>();
  const lookup = (grant: WitnessGrant): Uint8Array => {
    assertReadGrant(grant);
    const bytes = entries.get(grant.witness);
    if (!bytes) throw new WitnessNotFoundError(grant.witness);
    return bytes;
  };
  return {
    async put(payload) {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const hasher = createWitnessHasher();
      for await (const chunk of payloadChunks(payload)) {
        hasher.update(chunk);
        chunks.push(chunk.slice());
        size += chunk.byteLength;
      }
      const bytes = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      const witness = hasher.digest();
      if (!entries.has(witness)) entries.set(witness, bytes);
      return { witness, dataRef: `memory://witness/${witness}`, size };
    },
    async get(grant) {
      const bytes = lookup(grant);
      const actual = computeWitness(bytes);
      if (actual !== grant.witness) throw new WitnessVerificationError(grant.witness, actual);
      return bytes.slice();
    },
    async *stream(grant) {
      const bytes = lookup(grant);
      const hasher = createWitnessHasher();
      for (let offset = 0; offset < bytes.byteLength; offset += MEMORY_CHUNK) {
        const chunk = bytes.slice(offset, offset + MEMORY_CHUNK);
        hasher.update(chunk);
        yield chunk;
      }
      const actual = hasher.digest();
      if (actual !== grant.witness) throw new WitnessVerificationError(grant.witness, actual);
    },
    async has(witness) {
      return isWitness(witness) && entries.has(witness);
    },
  };
}
