import { describe, expect, it } from 'vitest';
import {
  type Capability,
  HandOffError,
  assertGrant,
  WitnessAccessDeniedError,
  WitnessNotFoundError,
  createHandOffMessage,
  createInMemoryWitnessStore,
  fromArtifact,
  handOffVectors,
  readHandOffMessage,
  resolveHandOff,
  toArtifact,
} from '../src/index.js';
import { collect, generateVectors } from './helpers.js';

describe('hand-off through the in-memory store', () => {
  it('hands off vectors and resolves them by witness', async () => {
    const store = createInMemoryWitnessStore();
    const { artifact, kind, payloadBytes, count } = await handOffVectors(store, generateVectors(500, 4), 4, { name: 'retrieval' });
    expect(count).toBe(500);
    expect(payloadBytes).toBe(16 + 4 + 500 * 16 + 12);
    expect(kind).toMatchObject({ kind: 'rulake_witness', capabilities: ['read'] });
    expect(artifact.name).toBe('retrieval');
    expect(fromArtifact(artifact)).toMatchObject(kind);
    const { vectors, witness } = await resolveHandOff(store, JSON.parse(JSON.stringify(artifact)));
    expect(witness).toBe(kind.witness);
    expect(await collect(vectors)).toHaveLength(500);
  });

  it('refuses an artifact that is not a RuLakeWitness', async () => {
    const store = createInMemoryWitnessStore();
    await expect(resolveHandOff(store, toArtifact({ kind: 'text', text: 'x' }))).rejects.toBeInstanceOf(HandOffError);
    const unknownVersion = toArtifact(
      { kind: 'rulake_witness', witness: 'a'.repeat(64), dataRef: 'x', capabilities: ['read'] },
      { version: '9' },
    );
    await expect(resolveHandOff(store, unknownVersion)).rejects.toMatchObject({ reason: 'not-a-witness-artifact' });
  });

  it('ADR-159 r2 scoped grant: without read the receiver is denied before any byte moves', async () => {
    const store = createInMemoryWitnessStore();
    const { artifact } = await handOffVectors(store, generateVectors(10, 4), 4, { capabilities: ['search'] });
    await expect(resolveHandOff(store, artifact)).rejects.toBeInstanceOf(WitnessAccessDeniedError);
  });

  it('ADR-159 r2 scoped grant: write and search are checked on resolve when the receiver needs them', async () => {
    const store = createInMemoryWitnessStore();
    const readOnly = (await handOffVectors(store, generateVectors(10, 4), 4, { capabilities: ['read'] })).artifact;
    await expect(resolveHandOff(store, readOnly, { require: ['search'] })).rejects.toMatchObject({
      name: 'WitnessAccessDeniedError',
      required: 'search',
    });
    await expect(resolveHandOff(store, readOnly, { require: ['write'] })).rejects.toBeInstanceOf(WitnessAccessDeniedError);
    const readSearch = (await handOffVectors(store, generateVectors(10, 4), 4, { capabilities: ['read', 'search'] })).artifact;
    const { vectors } = await resolveHandOff(store, readSearch, { require: ['search'] });
    expect(await collect(vectors)).toHaveLength(10);
    await expect(resolveHandOff(store, readSearch, { require: ['search', 'write'] })).rejects.toMatchObject({ required: 'write' });
  });

  it('a grant on the wire that was widened in transit still only grants what the reader knows', async () => {
    const store = createInMemoryWitnessStore();
    const { artifact } = await handOffVectors(store, generateVectors(2, 2), 2, { capabilities: ['search'] });
    const wire = JSON.parse(JSON.stringify(artifact));
    wire.parts[0].data.capabilities = ['search', 'READ', 'admin'];
    await expect(resolveHandOff(store, wire)).rejects.toBeInstanceOf(WitnessAccessDeniedError);
  });

  it('reports a witness the receiver tier does not hold', async () => {
    const { artifact } = await handOffVectors(createInMemoryWitnessStore(), generateVectors(10, 4), 4);
    await expect(resolveHandOff(createInMemoryWitnessStore(), artifact)).rejects.toBeInstanceOf(WitnessNotFoundError);
  });
});

describe('createHandOffMessage / readHandOffMessage', () => {
  it('carries the artifact parts and kind, and rebuilds the artifact on the receiver', async () => {
    const store = createInMemoryWitnessStore();
    const { artifact, kind } = await handOffVectors(store, generateVectors(3, 2), 2);
    const message = createHandOffMessage(artifact, { messageId: 'm-1', contextId: 'ctx', text: 'rerank these' });
    expect(message).toMatchObject({ messageId: 'm-1', role: 'ROLE_USER', contextId: 'ctx' });
    expect(message.parts[0]).toEqual({ text: 'rerank these' });
    expect(message.parts.slice(1)).toEqual(artifact.parts);
    const rebuilt = readHandOffMessage(JSON.parse(JSON.stringify(message)));
    expect(rebuilt?.artifactId).toBe(artifact.artifactId);
    expect(fromArtifact(rebuilt!)).toMatchObject(kind);
  });

  it('reads the kind from the parts when the message metadata is missing', async () => {
    const { artifact, kind } = await handOffVectors(createInMemoryWitnessStore(), generateVectors(3, 2), 2);
    const message = createHandOffMessage(artifact, { messageId: 'm-2' });
    delete message.metadata;
    const rebuilt = readHandOffMessage(message);
    expect(rebuilt?.artifactId).toBe('m-2');
    expect(fromArtifact(rebuilt!)).toMatchObject(kind);
  });

  it('returns undefined for a message without typed parts', () => {
    expect(readHandOffMessage({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] })).toBeUndefined();
    expect(readHandOffMessage(null as never)).toBeUndefined();
  });
});

describe('assertGrant: no grant, no access (ADR-159 r2)', () => {
  const witness = 'a'.repeat(64);
  const all: Capability[] = ['read', 'write', 'search'];
  it.each(all)('%s needs %s in the grant', (capability) => {
    expect(() => assertGrant({ witness, capabilities: [capability] }, capability)).not.toThrow();
    for (const other of all.filter((c) => c !== capability)) {
      expect(() => assertGrant({ witness, capabilities: [other] }, capability)).toThrow(WitnessAccessDeniedError);
    }
    expect(() => assertGrant({ witness, capabilities: [] }, capability)).toThrow(WitnessAccessDeniedError);
  });

  it('a malformed witness is not found, never a path', () => {
    expect(() => assertGrant({ witness: '../../etc/passwd', capabilities: ['read'] }, 'read')).toThrow(WitnessNotFoundError);
  });
});
