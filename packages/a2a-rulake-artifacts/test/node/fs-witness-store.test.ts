import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WitnessNotFoundError, WitnessVerificationError, computeWitness } from '../../src/index.js';
import { createFileSystemWitnessStore } from '../../src/node/index.js';
import { describeWitnessStoreContract } from '../../src/testing/index.js';
import { chunked, concatBytes, sameBytes } from '../helpers.js';

const bytes = new TextEncoder().encode('vectors on disk '.repeat(50_000));
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rulake-store-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

// A directory per contract test (small reads, so streams come in many chunks), removed at the end.
const contractDirectories: string[] = [];
afterAll(async () => {
  for (const dir of contractDirectories) await rm(dir, { recursive: true, force: true });
});
describeWitnessStoreContract(
  'file-system store',
  {
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'rulake-contract-'));
      contractDirectories.push(dir);
      return createFileSystemWitnessStore({ directory: dir, readChunkBytes: 1000 });
    },
  },
  { describe, it },
);

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

  it('a missing witness is not found when streamed too, and a path-like witness never reaches the file system', async () => {
    const store = createFileSystemWitnessStore({ directory });
    const { witness } = await store.put(bytes);
    await expect(concatBytes(store.stream({ witness: '0'.repeat(64), capabilities: ['read'] }))).rejects.toBeInstanceOf(
      WitnessNotFoundError,
    );
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
