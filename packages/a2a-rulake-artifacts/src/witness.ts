import { shake256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';
import { describeValue } from '@a2aplane/a2a-types';

/** Bytes of output: a witness is SHAKE-256 truncated to 32 bytes, as ADR-159 uses for AgentIDs. */
export const WITNESS_BYTES = 32;

/** Version of the witness format advertised in `metadata.ruvector.memory.witness_format_version`. */
export const WITNESS_FORMAT_VERSION = 1;

const WITNESS_PATTERN = /^[0-9a-f]{64}$/;

/** Whether `value` is a well-formed witness: 64 lowercase hex characters. */
export function isWitness(value: unknown): value is string {
  return typeof value === 'string' && WITNESS_PATTERN.test(value);
}

function assertBytes(value: unknown, what: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`expected ${what} to be a Uint8Array, got ${describeValue(value)}`);
  }
}

/** Lowercase hex SHAKE-256 (32-byte output) of `bytes`. */
export function computeWitness(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  return bytesToHex(shake256(bytes, { dkLen: WITNESS_BYTES }));
}

export interface WitnessHasher {
  update(chunk: Uint8Array): void;
  /** The witness of every chunk passed so far. Call once; the hasher is finished afterwards. */
  digest(): string;
}

/** Incremental witness, so large payloads are hashed as they stream past. */
export function createWitnessHasher(): WitnessHasher {
  const hash = shake256.create({ dkLen: WITNESS_BYTES });
  return {
    update(chunk) {
      assertBytes(chunk, 'chunk');
      hash.update(chunk);
    },
    digest() {
      return bytesToHex(hash.digest());
    },
  };
}

/** Whether `witness` is the witness of `bytes`. A malformed witness is simply `false`. */
export function verifyWitness(bytes: Uint8Array, witness: string): boolean {
  if (!isWitness(witness)) return false;
  return computeWitness(bytes) === witness;
}
