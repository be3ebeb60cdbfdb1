import { ArtifactSchema, RUVECTOR_KEYS, readRuvectorMetadata } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ARTIFACT_KIND_VERSION,
  type ArtifactKind,
  type StructuredValidator,
  fromArtifact,
  toArtifact,
  validateStructured,
} from '../src/index.js';
import { seededRandom } from './helpers.js';

const WITNESS = 'a'.repeat(64);

const KINDS: ArtifactKind[] = [
  { kind: 'text', text: 'hello, peer' },
  { kind: 'structured_json', value: { answer: 42, tags: ['a', 'b'], nested: { ok: true } }, schema: 'https://example.com/answer.json' },
  { kind: 'structured_json', value: [1, 2, 3] },
  { kind: 'structured_json', value: null },
  { kind: 'vector_ref', backend: 'rulake', collection: 'docs', witness: WITNESS, dim: 384, count: 100_000 },
  { kind: 'rulake_witness', witness: WITNESS, dataRef: 'gs://bucket/prod/bundle', capabilities: ['read'] },
  { kind: 'rulake_witness', witness: WITNESS, dataRef: 'file:///tmp/x', capabilities: ['read', 'write', 'search'] },
  { kind: 'raw', parts: [{ text: 'a' }, { url: 'https://example.com/f.bin', mediaType: 'application/octet-stream' }] },
];

describe('ADR-159 r2 artifact_kinds: round trip of every ArtifactKind variant', () => {
  for (const kind of KINDS) {
    it(`${kind.kind} survives toArtifact -> fromArtifact`, () => {
      const artifact = toArtifact(kind, { artifactId: 'art-1', name: 'n', description: 'd' });
      expect(ArtifactSchema.safeParse(artifact).success).toBe(true);
      expect(fromArtifact(artifact)).toEqual({ ...kind, version: ARTIFACT_KIND_VERSION });
    });

    it(`${kind.kind} survives JSON.stringify / JSON.parse on the wire`, () => {
      const wire = JSON.parse(JSON.stringify(toArtifact(kind)));
      expect(ArtifactSchema.safeParse(wire).success).toBe(true);
      expect(fromArtifact(wire)).toEqual({ ...kind, version: ARTIFACT_KIND_VERSION });
    });
  }

  it('writes the kind and version under metadata.ruvector with the ADR wire names', () => {
    const names = KINDS.map((kind) => readRuvectorMetadata(toArtifact(kind).metadata)?.[RUVECTOR_KEYS.artifactKind]);
    expect(new Set(names)).toEqual(new Set(['Text', 'StructuredJson', 'VectorRef', 'RuLakeWitness', 'Raw']));
    const meta = readRuvectorMetadata(toArtifact(KINDS[0]!).metadata);
    expect(meta).toEqual({ artifact_kind: 'Text', artifact_kind_version: '1' });
  });

  it('uses plain spec parts: a text part for Text and a data part for the others', () => {
    expect(toArtifact({ kind: 'text', text: 'x' }).parts[0]!.text).toBe('x');
    const sj = toArtifact({ kind: 'structured_json', value: { a: 1 }, schema: 's' }).parts[0]!;
    expect(sj.data).toEqual({ a: 1 });
    expect(sj.metadata?.schema).toBe('s');
    const witness = toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'file:///x', capabilities: ['read'] }).parts[0]!;
    expect(witness.data).toEqual({ witness: WITNESS, data_ref: 'file:///x', capabilities: ['read'] });
    expect(readRuvectorMetadata(witness.metadata)?.rvlake_witness).toBe(WITNESS);
  });

  it('generates an artifactId when none is given', () => {
    const a = toArtifact({ kind: 'text', text: 'x' });
    const b = toArtifact({ kind: 'text', text: 'x' });
    expect(a.artifactId).not.toBe(b.artifactId);
  });

  it('rejects programmer errors with TypeError / RangeError', () => {
    expect(() => toArtifact({ kind: 'text', text: 1 } as unknown as ArtifactKind)).toThrow(TypeError);
    expect(() => toArtifact({ kind: 'vector_ref', backend: 'b', collection: 'c', witness: 'xyz', dim: 1, count: 1 })).toThrow(TypeError);
    expect(() => toArtifact({ kind: 'vector_ref', backend: 'b', collection: 'c', witness: WITNESS, dim: 0, count: 1 })).toThrow(RangeError);
    expect(() => toArtifact({ kind: 'raw', parts: [] })).toThrow(RangeError);
    expect(() => toArtifact({ kind: 'nope' } as unknown as ArtifactKind)).toThrow(TypeError);
    expect(() =>
      toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'x', capabilities: ['admin'] } as unknown as ArtifactKind),
    ).toThrow(TypeError);
  });
});

describe('ADR-159 r2: receivers that do not understand a kind degrade to Raw', () => {
  it('reads an unknown kind as raw with a note', () => {
    const artifact = toArtifact({ kind: 'text', text: 'x' });
    artifact.metadata = { ruvector: { artifact_kind: 'HoloGram', artifact_kind_version: '1' } };
    const read = fromArtifact(artifact);
    expect(read.kind).toBe('raw');
    expect(read.note).toMatch(/unknown artifact_kind/);
    expect(read.kind === 'raw' && read.parts).toEqual(artifact.parts);
  });

  it('reads an unknown version as raw with a note', () => {
    const artifact = toArtifact({ kind: 'text', text: 'x' }, { version: '7' });
    const read = fromArtifact(artifact);
    expect(read).toMatchObject({ kind: 'raw', version: '7' });
    expect(read.note).toMatch(/higher-than-supported/);
    expect(fromArtifact(toArtifact({ kind: 'text', text: 'x' }, { version: 'banana' })).note).toMatch(/unknown/);
  });

  it('reads an artifact without the typed layer as raw', () => {
    const read = fromArtifact({ artifactId: 'a', parts: [{ text: 'plain' }] });
    expect(read).toMatchObject({ kind: 'raw', parts: [{ text: 'plain' }] });
    expect(read.note).toBeDefined();
  });

  it('reads a kind without a version as raw', () => {
    const read = fromArtifact({ artifactId: 'a', parts: [{ text: 'x' }], metadata: { ruvector: { artifact_kind: 'Text' } } });
    expect(read.kind).toBe('raw');
  });

  it('never throws on hostile input', () => {
    const hostile: unknown[] = [null, 42, 'x', {}, { parts: 'no' }, { artifactId: 'a', parts: [null], metadata: { ruvector: 5 } }];
    for (const input of hostile) {
      expect(() => fromArtifact(input as never)).not.toThrow();
      expect(fromArtifact(input as never).kind).toBe('raw');
    }
  });

  it('random corruptions of every kind on the wire never throw and always read as a known kind', () => {
    const random = seededRandom(11);
    const names = new Set(['text', 'structured_json', 'vector_ref', 'rulake_witness', 'raw']);
    let parsed = 0;
    for (const kind of KINDS) {
      const wire = JSON.stringify(toArtifact(kind));
      for (let i = 0; i < 150; i++) {
        const at = Math.floor(random() * wire.length);
        const corrupted =
          wire.slice(0, at) + String.fromCharCode(32 + Math.floor(random() * 95)) + wire.slice(at + 1 + Math.floor(random() * 3));
        let value: unknown;
        try {
          value = JSON.parse(corrupted);
        } catch {
          continue;
        }
        parsed++;
        const read = fromArtifact(value as never);
        expect(names.has(read.kind)).toBe(true);
      }
    }
    expect(parsed).toBeGreaterThan(100);
  });

  it('reads a malformed payload of a known kind as raw with a note', () => {
    const marker = { ruvector: { artifact_kind: 'VectorRef', artifact_kind_version: '1' } };
    const bad = [
      { artifactId: 'a', parts: [{ data: { backend: 'b', collection: 'c', witness: 'short', dim: 2, count: 1 } }], metadata: marker },
      { artifactId: 'a', parts: [{ data: { backend: 'b', collection: 'c', witness: WITNESS, dim: -1, count: 1 } }], metadata: marker },
      { artifactId: 'a', parts: [{ text: 'not data' }], metadata: marker },
      {
        artifactId: 'a',
        parts: [{ data: { witness: WITNESS, data_ref: 1, capabilities: [] } }],
        metadata: { ruvector: { artifact_kind: 'RuLakeWitness', artifact_kind_version: '1' } },
      },
      {
        artifactId: 'a',
        parts: [{ text: 'a' }, { text: 'b' }],
        metadata: { ruvector: { artifact_kind: 'Text', artifact_kind_version: '1' } },
      },
    ];
    for (const artifact of bad) {
      const read = fromArtifact(artifact);
      expect(read.kind).toBe('raw');
      expect(read.note).toBeTruthy();
    }
  });

  it('rejects a RuLakeWitness whose rvlake_witness marker disagrees with data.witness', () => {
    const artifact = toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'x', capabilities: ['read'] });
    (artifact.parts[0]!.data as { witness: string }).witness = 'b'.repeat(64);
    expect(fromArtifact(artifact).kind).toBe('raw');
  });

  it('drops unknown capabilities (least privilege) and says so', () => {
    const artifact = toArtifact({ kind: 'rulake_witness', witness: WITNESS, dataRef: 'x', capabilities: ['read'] });
    (artifact.parts[0]!.data as { capabilities: string[] }).capabilities = ['read', 'admin'];
    const read = fromArtifact(artifact);
    expect(read).toMatchObject({ kind: 'rulake_witness', capabilities: ['read'] });
    expect(read.note).toMatch(/capabilities/);
  });

  it('falls back to the kind named on the part when the artifact metadata is missing', () => {
    const artifact = toArtifact({ kind: 'text', text: 'x' });
    delete artifact.metadata;
    expect(fromArtifact(artifact)).toMatchObject({ kind: 'text', text: 'x' });
  });
});

describe('ADR-159 r2 schema-enforced JSON', () => {
  const Answer = z.object({ answer: z.number() });
  const ajvLike = Object.assign((value: unknown) => typeof value === 'object' && value !== null && 'answer' in value, {
    errors: [{ message: 'missing answer' }],
  });

  it('validates with a zod schema', () => {
    expect(validateStructured({ kind: 'structured_json', value: { answer: 1 } }, Answer)).toEqual({ ok: true });
    const bad = validateStructured({ kind: 'structured_json', value: { answer: 'x' } }, Answer);
    expect(bad.ok).toBe(false);
  });

  it('validates with an ajv-style function and a {valid, errors} function', () => {
    expect(validateStructured({ kind: 'structured_json', value: { answer: 1 } }, ajvLike)).toEqual({ ok: true });
    expect(validateStructured({ kind: 'structured_json', value: 3 }, ajvLike)).toEqual({
      ok: false,
      errors: [{ message: 'missing answer' }],
    });
    const fn = (value: unknown) => ({ valid: value === 1, errors: ['not one'] });
    expect(validateStructured({ kind: 'structured_json', value: 2 }, fn)).toEqual({ ok: false, errors: ['not one'] });
  });

  it("accepts a function shaped like ajv's ValidateFunction (type-checked), errors null on success", () => {
    // ajv/dist/types: `(this: Ajv | any, data: any, dataCxt?) => data is T` plus `errors`, `schema`.
    interface AjvErrorObject {
      instancePath: string;
      schemaPath: string;
      keyword: string;
      params: Record<string, unknown>;
      message?: string;
    }
    interface AjvValidateFunction<T = unknown> {
      // biome-ignore lint/suspicious/noExplicitAny: mirrors ajv's own declaration
      (this: any, data: any, dataCxt?: unknown): data is T;
      errors?: null | AjvErrorObject[];
      schema: unknown;
    }
    const validate = ((data: unknown) => {
      const ok = typeof data === 'object' && data !== null && typeof (data as { answer?: unknown }).answer === 'number';
      validate.errors = ok
        ? null
        : [
            {
              instancePath: '/answer',
              schemaPath: '#/properties/answer/type',
              keyword: 'type',
              params: { type: 'number' },
              message: 'must be number',
            },
          ];
      return ok;
    }) as AjvValidateFunction<{ answer: number }>;
    validate.schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const validator: StructuredValidator = validate;
    expect(validateStructured({ kind: 'structured_json', value: { answer: 1 } }, validator)).toEqual({ ok: true });
    expect(validateStructured({ kind: 'structured_json', value: { answer: 'x' } }, validator)).toMatchObject({
      ok: false,
      errors: [{ keyword: 'type' }],
    });
    const artifact = toArtifact({ kind: 'structured_json', value: { answer: 'x' }, schema: 'urn:answer' });
    expect(fromArtifact(artifact, { validators: { 'urn:answer': validate } })).toMatchObject({ kind: 'raw' });
  });

  it('treats a throwing validator as a failure, and rejects a non-validator', () => {
    const throwing = () => {
      throw new Error('boom');
    };
    expect(validateStructured({ kind: 'structured_json', value: 1 }, throwing).ok).toBe(false);
    expect(() => validateStructured({ kind: 'structured_json', value: 1 }, 5 as never)).toThrow(TypeError);
  });

  it('fromArtifact applies the validator registered for the schema', () => {
    const good = toArtifact({ kind: 'structured_json', value: { answer: 1 }, schema: 'answer' });
    const bad = toArtifact({ kind: 'structured_json', value: { answer: 'no' }, schema: 'answer' });
    expect(fromArtifact(good, { validators: { answer: Answer } }).kind).toBe('structured_json');
    const read = fromArtifact(bad, { validators: { answer: Answer } });
    expect(read.kind).toBe('raw');
    expect(read.note).toMatch(/schema answer/);
    expect(fromArtifact(bad).kind).toBe('structured_json');
  });
});
