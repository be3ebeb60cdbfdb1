import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import type { AgentRecord } from '../core/types.js';
import { FILE_HEAD, FILE_SEPARATOR, FILE_TAIL, parseRegistryFile, RegistryFileError } from './file-format.js';
import { checkedMaxAgents } from './in-memory-store.js';
import { createMemoryIndex, RegistryStoreFullError } from './memory-index.js';
import type { RegistryStore } from './registry-store.js';

export { RegistryFileError } from './file-format.js';

export interface FileRegistryStoreOptions {
  /** The JSON file: read at start (missing: an empty registry), rewritten after every change. */
  path: string;
  /** Largest file the store reads or writes; a change past it is refused. Default 64 MiB. */
  maxBytes?: number;
  /** Most agents kept. Default 100 000. */
  maxAgents?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Writes `text` to a temporary file beside `path`, flushes it, then renames it over `path`: a reader sees the old file or the new one. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function readRecords(path: string, maxBytes: number): Promise<AgentRecord[]> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new RegistryFileError(path, `cannot be read (${(error as Error).message})`, { cause: error });
  }
  if (size > maxBytes) throw new RegistryFileError(path, `is ${size} bytes, more than maxBytes (${maxBytes})`);
  return parseRegistryFile(path, await readFile(path, 'utf8'));
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  /** Puts the record back as it was before this change (the file did not take it). */
  undo(): void;
}

/**
 * The embedded store on a JSON file (issue 34 item 5, "in memory, or a file"; decision 0146): the
 * in-memory store's indexes, loaded from the file at start, and the whole file rewritten
 * atomically (temporary file, flush, rename) before a write is acknowledged. Writes that arrive
 * while the file is being written share the next rewrite. One process owns the file; for several
 * replicas use the PostgreSQL store.
 */
export async function createFileRegistryStore(options: FileRegistryStoreOptions): Promise<RegistryStore> {
  const path = options.path;
  if (typeof path !== 'string' || path === '') throw new TypeError('expected options.path, the registry file');
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1024) throw new RangeError(`expected maxBytes >= 1024, got ${String(maxBytes)}`);
  const maxAgents = checkedMaxAgents(options.maxAgents);
  const index = createMemoryIndex(maxAgents);
  // Each record's JSON text, kept so a rewrite joins strings instead of serializing every record.
  const texts = new Map<string, string>();
  let textBytes = 0;
  const fileBytes = (): number =>
    Buffer.byteLength(FILE_HEAD) + textBytes + FILE_SEPARATOR.length * Math.max(texts.size - 1, 0) + Buffer.byteLength(FILE_TAIL);
  const setText = (id: string, text: string | undefined): void => {
    const before = texts.get(id);
    if (before !== undefined) textBytes -= Buffer.byteLength(before);
    texts.delete(id);
    if (text === undefined) return;
    textBytes += Buffer.byteLength(text);
    texts.set(id, text);
  };

  const loaded = await readRecords(path, maxBytes);
  if (loaded.length > maxAgents) throw new RegistryFileError(path, `holds ${loaded.length} agents, more than maxAgents (${maxAgents})`);
  for (const record of loaded) {
    const clash =
      (await index.get(record.id)) ?? (await index.findByAgentId(record.agentId)) ?? (await index.findByCardUrl(record.cardUrl));
    if (clash) throw new RegistryFileError(path, `has two records with one id, AgentID or card URL (${record.id}, ${clash.id})`);
    index.load(record);
    setText(record.id, JSON.stringify(record));
  }

  let pending: Waiter[] = [];
  let draining: Promise<void> | undefined;
  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await writeAtomically(path, FILE_HEAD + [...texts.values()].join(FILE_SEPARATOR) + FILE_TAIL);
        for (const waiter of batch) waiter.resolve();
      } catch (error) {
        // Changes made since the last good write are all undone, newest first, so memory matches the file.
        const failed = [...batch, ...pending];
        pending = [];
        for (const waiter of [...failed].reverse()) waiter.undo();
        const cause = new RegistryFileError(path, `cannot be written (${(error as Error).message})`, { cause: error });
        for (const waiter of failed) waiter.reject(cause);
      }
    }
    draining = undefined;
  }
  const persist = (undo: () => void): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      pending.push({ resolve, reject, undo });
      draining ??= drain();
    });

  return {
    get: index.get,
    findByAgentId: index.findByAgentId,
    findByCardUrl: index.findByCardUrl,
    search: index.search,
    async put(record, expectedRevision) {
      const before = await index.get(record.id);
      const beforeText = texts.get(record.id);
      const stored = await index.put(record, expectedRevision);
      const undo = (): void => {
        index.remove(stored.id);
        if (before) index.load(before);
        setText(stored.id, beforeText);
      };
      setText(stored.id, JSON.stringify(stored));
      if (fileBytes() > maxBytes) {
        undo();
        throw new RegistryStoreFullError(stored.id, `the registry file would pass maxBytes (${maxBytes})`);
      }
      await persist(undo);
      return stored;
    },
    async close() {
      await draining;
    },
  };
}
