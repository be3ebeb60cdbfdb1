/// <reference types="node" />
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeValue } from '@a2aplane/a2a-types';
import { WitnessNotFoundError, WitnessVerificationError } from '../errors.js';
import { type WitnessStore, assertReadGrant, payloadChunks } from '../store.js';
import { isWitness } from '../witness.js';
import { createNodeWitnessHasher } from './node-witness-hasher.js';

export interface FileSystemWitnessStoreOptions {
  /** Root directory of the store; created on first write. */
  directory: string;
  /** Bytes per chunk when streaming a payload back; defaults to 64 KiB. */
  readChunkBytes?: number;
}

const TMP_DIR = '.tmp';

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

/**
 * A WitnessStore on disk: each payload lives at `<directory>/<first two hex>/<witness>`, written to
 * a temporary file while it is hashed and renamed into place, so a reader never sees a partial file.
 * `dataRef` is the file's `file://` URL.
 */
export function createFileSystemWitnessStore(options: FileSystemWitnessStoreOptions): WitnessStore {
  if (typeof options !== 'object' || options === null || typeof options.directory !== 'string' || options.directory === '') {
    throw new TypeError(
      `expected options.directory to be a non-empty string, got ${describeValue(options === null || typeof options !== 'object' ? options : options.directory)}`,
    );
  }
  const root = resolve(options.directory);
  const chunkBytes = options.readChunkBytes ?? 64 * 1024;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1)
    throw new RangeError(`expected readChunkBytes to be an integer >= 1, got ${describeValue(chunkBytes)}`);
  // The witness is validated before this is called, so it cannot escape the root.
  const pathOf = (witness: string): string => join(root, witness.slice(0, 2), witness);

  return {
    async put(payload) {
      const tmpDir = join(root, TMP_DIR);
      await mkdir(tmpDir, { recursive: true });
      const tmpPath = join(tmpDir, `${randomUUID()}.part`);
      const hasher = createNodeWitnessHasher();
      let size = 0;
      const handle = await open(tmpPath, 'wx');
      try {
        try {
          for await (const chunk of payloadChunks(payload)) {
            hasher.update(chunk);
            let written = 0;
            while (written < chunk.byteLength) {
              const { bytesWritten } = await handle.write(chunk, written, chunk.byteLength - written);
              written += bytesWritten;
            }
            size += chunk.byteLength;
          }
          await handle.sync();
        } finally {
          await handle.close();
        }
        const witness = hasher.digest();
        const finalPath = pathOf(witness);
        await mkdir(join(root, witness.slice(0, 2)), { recursive: true });
        // Same witness means same bytes: an existing file is kept, the new copy discarded.
        await rename(tmpPath, finalPath);
        return { witness, dataRef: pathToFileURL(finalPath).href, size };
      } finally {
        await rm(tmpPath, { force: true });
      }
    },

    async get(grant) {
      assertReadGrant(grant);
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(pathOf(grant.witness)));
      } catch (error) {
        if (isMissing(error)) throw new WitnessNotFoundError(grant.witness, { cause: error });
        throw error;
      }
      const hasher = createNodeWitnessHasher();
      hasher.update(bytes);
      const actual = hasher.digest();
      if (actual !== grant.witness) throw new WitnessVerificationError(grant.witness, actual);
      return bytes;
    },

    async *stream(grant) {
      assertReadGrant(grant);
      const path = pathOf(grant.witness);
      try {
        await stat(path);
      } catch (error) {
        if (isMissing(error)) throw new WitnessNotFoundError(grant.witness, { cause: error });
        throw error;
      }
      const hasher = createNodeWitnessHasher();
      const source = createReadStream(path, { highWaterMark: chunkBytes });
      try {
        for await (const chunk of source) {
          const bytes = new Uint8Array((chunk as Uint8Array).buffer, (chunk as Uint8Array).byteOffset, (chunk as Uint8Array).byteLength);
          hasher.update(bytes);
          yield bytes;
        }
      } catch (error) {
        // Removed between the stat and the open.
        if (isMissing(error)) throw new WitnessNotFoundError(grant.witness, { cause: error });
        throw error;
      } finally {
        source.destroy();
      }
      const actual = hasher.digest();
      if (actual !== grant.witness) throw new WitnessVerificationError(grant.witness, actual);
    },

    async has(witness) {
      if (!isWitness(witness)) return false;
      try {
        return (await stat(pathOf(witness))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
  };
}
