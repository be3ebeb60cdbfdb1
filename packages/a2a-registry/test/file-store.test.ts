import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFileRegistryStore, RegistryFileError, RegistryStoreFullError } from '../src/index.js';
import { describeRegistryStoreContract, sampleAgentRecord } from '../src/testing/index.js';

const dir = await mkdtemp(join(tmpdir(), 'registry-file-store-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `registry-${++files}.json`);

describeRegistryStoreContract('file', { create: () => createFileRegistryStore({ path: freshPath() }) }, { describe, it, afterEach });

describe('the file store', () => {
  it('keeps every record, revision and index across a restart', async () => {
    const path = freshPath();
    const store = await createFileRegistryStore({ path });
    const first = await store.put(sampleAgentRecord({ id: 'a', skills: ['translate'], tags: ['language'] }), null);
    const rotated = await store.put(
      {
        ...first,
        agentId: 'b'.repeat(64),
        keyHistory: [{ agentId: first.agentId, keys: first.keys, from: first.keySince, until: first.updatedAt, reason: 'rotated' }],
      },
      first.revision,
    );
    await store.put(sampleAgentRecord({ id: 'c', status: 'revoked' }), null);
    await store.close?.();

    const reopened = await createFileRegistryStore({ path });
    expect(await reopened.get('a')).toEqual(rotated);
    expect((await reopened.findByAgentId(first.agentId))?.id).toBe('a');
    expect((await reopened.search({ skill: 'translate' })).agents.map((agent) => agent.id)).toEqual(['a']);
    expect((await reopened.search({ includeInactive: true })).agents.map((agent) => agent.id)).toEqual(['a', 'c']);
    // The revision goes on from where it was: a stale writer is still refused after the restart.
    await expect(reopened.put({ ...rotated, tier: 'lost' }, first.revision)).rejects.toThrow(/changed by another writer/);
    expect((await reopened.put({ ...rotated, tier: 'gold' }, rotated.revision)).revision).toBe(rotated.revision + 1);
  });

  it('starts empty without a file and writes it atomically, leaving no temporary file', async () => {
    const path = freshPath();
    const store = await createFileRegistryStore({ path });
    expect(existsSync(path)).toBe(false);
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.put(sampleAgentRecord({ id: `agent-${index}` }), null)));
    const file = JSON.parse(await readFile(path, 'utf8')) as { format: string; version: number; agents: unknown[] };
    expect(file.format).toBe('a2aplane-registry');
    expect(file.agents).toHaveLength(20);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a corrupt file with a clear error and leaves it as it is', async () => {
    const path = freshPath();
    await writeFile(path, '{"format":"a2aplane-registry","version":1,"agents":[{"id":');
    const error = await createFileRegistryStore({ path }).catch((caught: unknown) => caught);
    expect(RegistryFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/is not JSON.*left as it is/);
    expect(await readFile(path, 'utf8')).toBe('{"format":"a2aplane-registry","version":1,"agents":[{"id":');

    await writeFile(path, JSON.stringify({ format: 'a2aplane-registry', version: 1, agents: [{ id: 'a', revision: 1 }] }));
    await expect(createFileRegistryStore({ path })).rejects.toThrow(/agents\.0\.agentId/);
    await writeFile(path, JSON.stringify({ hello: 'world' }));
    await expect(createFileRegistryStore({ path })).rejects.toThrow(/not a registry file/);
    const record = { ...sampleAgentRecord({ id: 'a' }), revision: 1 };
    await writeFile(path, JSON.stringify({ format: 'a2aplane-registry', version: 1, agents: [record, { ...record, id: 'b' }] }));
    await expect(createFileRegistryStore({ path })).rejects.toThrow(/two records with one id, AgentID or card URL/);
  });

  it('is bounded: a file past maxBytes is refused at start, and a change past it is refused and not kept', async () => {
    const path = freshPath();
    const store = await createFileRegistryStore({ path, maxBytes: 4096 });
    const first = await store.put(sampleAgentRecord({ id: 'a' }), null);
    await expect(store.put(sampleAgentRecord({ id: 'b', cardText: 'x'.repeat(4096) }), null)).rejects.toBeInstanceOf(
      RegistryStoreFullError,
    );
    await expect(store.put({ ...first, cardText: 'y'.repeat(4096) }, first.revision)).rejects.toBeInstanceOf(RegistryStoreFullError);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toEqual(first);
    const onDisk = JSON.parse(await readFile(path, 'utf8')) as { agents: Array<{ id: string }> };
    expect(onDisk.agents.map((agent) => agent.id)).toEqual(['a']);
    await expect(createFileRegistryStore({ path, maxBytes: 1024 })).rejects.toThrow(/more than maxBytes \(1024\)/);
  });

  it('a write the disk refuses is refused to the caller and undone in memory', async () => {
    const sub = join(dir, `gone-${++files}`);
    await import('node:fs/promises').then((fs) => fs.mkdir(sub));
    const path = join(sub, 'registry.json');
    const store = await createFileRegistryStore({ path });
    const first = await store.put(sampleAgentRecord({ id: 'a', tier: 'one' }), null);
    await rm(sub, { recursive: true });
    const changes = [
      store.put({ ...first, tier: 'two' }, first.revision),
      store.put(sampleAgentRecord({ id: 'b', skills: ['gone'] }), null),
    ];
    for (const change of changes) await expect(change).rejects.toSatisfy((error: unknown) => RegistryFileError.isInstance(error));
    expect(await store.get('a')).toEqual(first);
    expect(await store.get('b')).toBeUndefined();
    expect((await store.search({ skill: 'gone' })).agents).toEqual([]);
  });
});
