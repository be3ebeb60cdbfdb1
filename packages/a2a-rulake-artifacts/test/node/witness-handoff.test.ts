import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SendMessageRequestSchema, createJsonRpcRequest } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VECTOR_HEADER_BYTES,
  type WitnessGrant,
  type WitnessStore,
  WitnessVerificationError,
  computeWitness,
  createHandOffMessage,
  handOffVectors,
  readHandOffMessage,
  resolveHandOff,
} from '../../src/index.js';
import { createFileSystemWitnessStore } from '../../src/node/index.js';
import { createVectorChecksum, generateVectors } from '../helpers.js';

const DIM = 8;
const COUNTS = [1_000, 10_000, 100_000, 1_000_000];
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rulake-handoff-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/**
 * The HTTP body a client POSTs for SendMessage carrying the hand-off, built as a2a-client's JSON-RPC
 * transport builds it (`JSON.stringify(createJsonRpcRequest(crypto.randomUUID(), 'SendMessage', params))`,
 * packages/a2a-client/src/transports/json-rpc.ts), with the random ids the client and
 * createHandOffMessage generate.
 */
function sendMessageBody(message: ReturnType<typeof createHandOffMessage>): string {
  return JSON.stringify(createJsonRpcRequest(globalThis.crypto.randomUUID(), 'SendMessage', { message }));
}

/** Largest chunk the codec produces: one block of 256 KiB of rows plus its 4-byte row count. */
const MAX_CHUNK_BYTES = 256 * 1024 + 4;

/** Wraps a store and records the size of every chunk that flows into `put` and out of `stream`. */
function recordingStore(inner: WitnessStore): WitnessStore & { largestPut: number; largestRead: number; putChunks: number } {
  const recorder = {
    largestPut: 0,
    largestRead: 0,
    putChunks: 0,
    async put(payload: Uint8Array | AsyncIterable<Uint8Array>) {
      if (payload instanceof Uint8Array) throw new Error('expected the payload to be streamed, got one buffer');
      async function* observe(source: AsyncIterable<Uint8Array>) {
        for await (const chunk of source) {
          recorder.putChunks++;
          recorder.largestPut = Math.max(recorder.largestPut, chunk.byteLength);
          yield chunk;
        }
      }
      return inner.put(observe(payload));
    },
    get: (grant: WitnessGrant) => inner.get(grant),
    async *stream(grant: WitnessGrant) {
      for await (const chunk of inner.stream(grant)) {
        recorder.largestRead = Math.max(recorder.largestRead, chunk.byteLength);
        yield chunk;
      }
    },
    has: (witness: string) => inner.has(witness),
  };
  return recorder;
}

describe('ADR-159 acceptance test 2 (witness_handoff): memory transfer is constant-size', () => {
  it('the SendMessage body is <= 2 KiB and identical in size at 1k, 10k, 100k and 1M vectors', async () => {
    const sender = recordingStore(createFileSystemWitnessStore({ directory }));
    // The receiver is another peer on the same tier: a separate store over the same directory.
    const receiver = recordingStore(createFileSystemWitnessStore({ directory }));
    const bodySizes: number[] = [];
    const payloadSizes: number[] = [];

    for (const count of COUNTS) {
      const seed = count;
      const { artifact, payloadBytes } = await handOffVectors(sender, generateVectors(count, DIM, seed), DIM);
      expect(payloadBytes).toBeGreaterThan(count * DIM * 4);
      payloadSizes.push(payloadBytes);

      const body = sendMessageBody(createHandOffMessage(artifact));
      bodySizes.push(new TextEncoder().encode(body).byteLength);

      // Receiver: parse the request exactly as it arrived, rebuild the artifact, resolve and verify.
      const request = JSON.parse(body) as { method: string; params: unknown };
      expect(request.method).toBe('SendMessage');
      const params = SendMessageRequestSchema.safeParse(request.params);
      expect(params.success).toBe(true);
      const received = readHandOffMessage(params.data!.message);
      expect(received).toBeDefined();
      const { vectors } = await resolveHandOff(receiver, received!);

      const expected = createVectorChecksum();
      for (const row of generateVectors(count, DIM, seed)) expected.add(row);
      const actual = createVectorChecksum();
      for await (const row of vectors) actual.add(row);
      expect(actual.count()).toBe(count);
      expect(actual.value()).toBe(expected.value());
    }

    expect(Math.max(...bodySizes)).toBeLessThanOrEqual(2048);
    expect(new Set(bodySizes).size).toBe(1);
    // The payload itself grew a thousandfold; the body did not.
    expect(payloadSizes[3]! / payloadSizes[0]!).toBeGreaterThan(900);
    // Streaming end to end: 32 MB went into the tier and back out in bounded chunks, so the
    // million vectors never sat in one buffer (let alone one JS string) on either side.
    expect(sender.putChunks).toBeGreaterThan(100);
    expect(sender.largestPut).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    expect(receiver.largestRead).toBeLessThanOrEqual(64 * 1024);
  }, 120_000);

  it('the witness in the body is the SHAKE-256 of the stored payload', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const { kind } = await handOffVectors(store, generateVectors(100, DIM, 5), DIM);
    const bytes = new Uint8Array(await readFile(fileURLToPath(kind.dataRef)));
    expect(computeWitness(bytes)).toBe(kind.witness);
  });

  it('tamper: a flipped byte in the shared file fails verification at the receiver', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const { artifact, kind } = await handOffVectors(store, generateVectors(2_000, DIM, 9), DIM);
    const path = fileURLToPath(kind.dataRef);
    const bytes = new Uint8Array(await readFile(path));
    // Flip a bit inside a float so the RVEC structure stays valid and only the witness catches it.
    const offset = VECTOR_HEADER_BYTES + 4 + 100;
    bytes[offset] = bytes[offset]! ^ 0x10;
    await writeFile(path, bytes);
    const { vectors } = await resolveHandOff(store, artifact);
    const drain = async () => {
      for await (const _row of vectors) {
        // consume
      }
    };
    await expect(drain()).rejects.toBeInstanceOf(WitnessVerificationError);
  });
});
