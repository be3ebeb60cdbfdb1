import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { fromArtifact, toArtifact, validateStructured } from '../src/index.js';

// ajv is an optional peer: a receiver that validates StructuredJson against JSON Schema passes its
// compiled function, and nothing of ajv is imported by the package itself.
describe('StructuredJson with a real ajv 8 validator', () => {
  const ajv = new Ajv({ allErrors: true });
  const forecast = ajv.compile({
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
    additionalProperties: false,
  });

  it('accepts a matching value and reports ajv errors for a bad one', () => {
    expect(validateStructured({ kind: 'structured_json', value: { city: 'Oslo', celsius: -3 } }, forecast)).toEqual({ ok: true });
    const bad = validateStructured({ kind: 'structured_json', value: { city: 'Oslo', celsius: 'cold', wind: 3 } }, forecast);
    expect(bad.ok).toBe(false);
    const errors = (bad as { errors: Array<{ instancePath: string; keyword: string }> }).errors;
    expect(errors.map((error) => `${error.keyword}:${error.instancePath}`).sort()).toEqual(['additionalProperties:', 'type:/celsius']);
  });

  it('fromArtifact keeps a valid value typed and reads an invalid one as Raw', () => {
    const validators = { 'urn:forecast:v1': forecast };
    const good = toArtifact({ kind: 'structured_json', value: { city: 'Oslo', celsius: -3 }, schema: 'urn:forecast:v1' });
    expect(fromArtifact(good, { validators })).toMatchObject({ kind: 'structured_json', value: { city: 'Oslo', celsius: -3 } });
    const bad = toArtifact({ kind: 'structured_json', value: { city: 'Oslo' }, schema: 'urn:forecast:v1' });
    const read = fromArtifact(bad, { validators });
    expect(read.kind).toBe('raw');
    expect((read as { note?: string }).note).toMatch(/does not match schema urn:forecast:v1/);
  });
});
