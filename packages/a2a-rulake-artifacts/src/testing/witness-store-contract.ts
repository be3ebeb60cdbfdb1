import { WitnessAccessDeniedError, WitnessNotFoundError } from '../errors.js';
import type { WitnessStore } from '../store.js';
import { computeWitness } from '../witness.js';

/**
 * The test-runner functions the suite registers its tests with: vitest's, node:test's or jest's
 * `describe`/`it` fit. The suite asserts with its own checks (`WitnessStoreContractError`), so it
 * needs no runner and no `node:` module.
 */
export interface WitnessStoreContractApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
}

export interface WitnessStoreContractOptions {
  /** A store for one test: empty, or holding only what other tests put (payloads are random per run). */
  create(): WitnessStore | Promise<WitnessStore>;
}

/** A check of the contract that failed. */
export class WitnessStoreContractError extends Error {
  override name = 'WitnessStoreContractError';
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new WitnessStoreContractError(message);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new WitnessStoreContractError('expected a rejection, got a resolution');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

async function concat(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.slice(i, i + size);
}

/** A payload of its own per call (so stores shared across tests and runs never collide), ~200 KiB. */
function payload(): Uint8Array {
  const seed = `${Date.now()}-${Math.random()}-`;
  return new TextEncoder().encode(seed.repeat(Math.ceil(200_000 / seed.length)));
}

/**
 * The `WitnessStore` contract every implementation runs (the in-memory store, the file-system one,
 * a shared tier of your own): content addressing (bytes or a chunk stream put under their
 * SHAKE-256 witness, the same descriptor twice), reads whole and streamed by a `read` grant,
 * ADR-159 r2 scoped grants (no `read`, no access), unknown and malformed witnesses reported as
 * not found, stored bytes isolated from the caller's buffers, and `TypeError` for a wrong grant
 * or payload type.
 */
export function describeWitnessStoreContract(name: string, options: WitnessStoreContractOptions, api: WitnessStoreContractApi): void {
  const { describe, it } = api;
  describe(`WitnessStore contract: ${name}`, () => {
    it('puts bytes or a chunk stream under their witness and reads them back, whole and streamed', async () => {
      const store = await options.create();
      const bytes = payload();
      const a = await store.put(bytes);
      const b = await store.put(chunked(bytes, 1000));
      check(a.witness === computeWitness(bytes), `the witness is the SHAKE-256 of the payload, got ${a.witness}`);
      check(b.witness === a.witness && b.dataRef === a.dataRef && b.size === a.size, 'a streamed put of the same bytes is the same entry');
      check(a.size === bytes.byteLength, `size ${a.size}, expected ${bytes.byteLength}`);
      check(await store.has(a.witness), 'has() the stored witness');
      check(sameBytes(await store.get({ witness: a.witness, capabilities: ['read'] }), bytes), 'get() returns the payload');
      const streamed = await concat(store.stream({ witness: a.witness, capabilities: ['read', 'search'] }));
      check(sameBytes(streamed, bytes), 'stream() returns the payload');
    });

    it('ADR-159 r2 scoped grant: a grant without read is denied, for get and stream', async () => {
      const store = await options.create();
      const { witness } = await store.put(payload());
      const denied = await rejection(store.get({ witness, capabilities: ['write'] }));
      check(WitnessAccessDeniedError.isInstance(denied), `get without read: WitnessAccessDeniedError, got ${String(denied)}`);
      check(denied.witness === witness && denied.required === 'read', 'the error names the witness and the capability');
      const streamDenied = await rejection(concat(store.stream({ witness, capabilities: [] })));
      check(
        WitnessAccessDeniedError.isInstance(streamDenied),
        `stream without read: WitnessAccessDeniedError, got ${String(streamDenied)}`,
      );
    });

    it('reports an unknown or malformed witness as not found', async () => {
      const store = await options.create();
      const unknown = computeWitness(payload());
      for (const witness of [unknown, '../etc/passwd']) {
        const error = await rejection(store.get({ witness, capabilities: ['read'] }));
        check(WitnessNotFoundError.isInstance(error), `get(${witness}): WitnessNotFoundError, got ${String(error)}`);
        check(!(await store.has(witness)), `has(${witness}) is false`);
      }
    });

    it('is not affected by the caller mutating the put or the returned buffers', async () => {
      const store = await options.create();
      const bytes = payload();
      const copy = bytes.slice();
      const { witness } = await store.put(copy);
      copy[0] = 0;
      const got = await store.get({ witness, capabilities: ['read'] });
      got[1] = 0;
      check(sameBytes(await store.get({ witness, capabilities: ['read'] }), bytes), 'the stored payload is unchanged');
    });

    it('rejects a wrong grant shape or payload type with TypeError', async () => {
      const store = await options.create();
      check((await rejection(store.get(null as never))) instanceof TypeError, 'get(null): TypeError');
      check((await rejection(store.put('text' as never))) instanceof TypeError, 'put(string): TypeError');
    });
  });
}
