import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WitnessAccessDeniedError, WitnessNotFoundError, WitnessVerificationError, computeWitness } from '../../src/index.js';
import { createFileSystemWitnessStore } from '../../src/node/index.js';
import { chunked, concatBytes, sameBytes } from '../helpers.js';

const bytes = new TextEncoder().encode('vectors on disk '.repeat(50_000));
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rulake-store-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('file-system WitnessStore', () => {
  it('stores content-addressed at <dir>/<aa>/<witness> with a file:// dataRef', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const stored = await store.put(chunked(bytes, 4096));
    expect(stored.witness).toBe(computeWitness(bytes));
    expect(stored.size).toBe(bytes.byteLength);
    const path = join(directory, stored.witness.slice(0, 2), stored.witness);
    expect(fileURLToPath(stored.dataRef)).toBe(path);
    expect(sameBytes(new Uint8Array(await readFile(path)), bytes)).toBe(true);
    // The temporary file was renamed away.
    expect(await readdir(join(directory, '.tmp'))).toEqual([]);
  });

  it('reads back by grant, whole and streamed, and deduplicates identical puts', async () => {
    const store = createFileSystemWitnessStore({ directory, readChunkBytes: 1000 });
    const a = await store.put(bytes);
    const b = await store.put(chunked(bytes, 777));
    expect(b).toEqual(a);
    expect(await store.has(a.witness)).toBe(true);
    const grant = { witness: a.witness, capabilities: ['read'] as const };
    expect(sameBytes(await store.get(grant), bytes)).toBe(true);
    expect(sameBytes(await concatBytes(store.stream(grant)), bytes)).toBe(true);
  });

  it('tamper: flipping a byte in the stored file raises WitnessVerificationError', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const { witness, dataRef } = await store.put(bytes);
    const path = fileURLToPath(dataRef);
    const onDisk = new Uint8Array(await readFile(path));
    onDisk[12345] = onDisk[12345]! ^ 0x01;
    await writeFile(path, onDisk);
    const grant = { witness, capabilities: ['read'] as const };
    await expect(store.get(grant)).rejects.toBeInstanceOf(WitnessVerificationError);
    await expect(store.get(grant)).rejects.toMatchObject({ witness });
    await expect(concatBytes(store.stream(grant))).rejects.toBeInstanceOf(WitnessVerificationError);
  });

  it('denies a grant without read and reports missing or malformed witnesses as not found', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const { witness } = await store.put(bytes);
    await expect(store.get({ witness, capabilities: ['search'] })).rejects.toBeInstanceOf(WitnessAccessDeniedError);
    await expect(concatBytes(store.stream({ witness, capabilities: ['write'] }))).rejects.toBeInstanceOf(WitnessAccessDeniedError);
    await expect(store.get({ witness: '0'.repeat(64), capabilities: ['read'] })).rejects.toBeInstanceOf(WitnessNotFoundError);
    await expect(concatBytes(store.stream({ witness: '0'.repeat(64), capabilities: ['read'] }))).rejects.toBeInstanceOf(
      WitnessNotFoundError,
    );
    // A path-like witness never reaches the file system.
    await expect(store.get({ witness: `../${witness}`, capabilities: ['read'] })).rejects.toBeInstanceOf(WitnessNotFoundError);
    expect(await store.has(`../../${witness}`)).toBe(false);
  });

  it('leaves no file behind when the payload stream fails', async () => {
    const store = createFileSystemWitnessStore({ directory });
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield bytes.subarray(0, 100);
      throw new Error('source failed');
    }
    await expect(store.put(failing())).rejects.toThrow('source failed');
    expect(await readdir(join(directory, '.tmp'))).toEqual([]);
    expect((await readdir(directory)).filter((name) => name !== '.tmp')).toEqual([]);
  });

  it('rejects bad options with TypeError', () => {
    expect(() => createFileSystemWitnessStore({ directory: '' })).toThrow(TypeError);
  });
});
