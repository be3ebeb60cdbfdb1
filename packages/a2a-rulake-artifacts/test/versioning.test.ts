import { describe, expect, it } from 'vitest';
import { checkArtifactVersion, fromArtifact, negotiateArtifactKindVersion, toArtifact } from '../src/index.js';

describe('ADR-159 r3 artifact_version_handshake', () => {
  it('peer A ["1"] and peer B ["1","2"] negotiate "1" and both round-trip a v1 artifact', () => {
    const a = ['1'];
    const b = ['1', '2'];
    const version = negotiateArtifactKindVersion(a, b);
    expect(version).toBe('1');
    expect(negotiateArtifactKindVersion(b, a)).toBe('1');
    const kind = { kind: 'rulake_witness' as const, witness: 'c'.repeat(64), dataRef: 'file:///x', capabilities: ['read' as const] };
    const fromA = JSON.parse(JSON.stringify(toArtifact(kind, { version })));
    const fromB = JSON.parse(JSON.stringify(toArtifact(kind, { version })));
    expect(fromArtifact(fromA, { supportedVersions: b })).toEqual({ ...kind, version: '1' });
    expect(fromArtifact(fromB, { supportedVersions: a })).toEqual({ ...kind, version: '1' });
  });

  it('peer A ["1"] cannot read a v2 artifact from peer B', () => {
    const v2 = toArtifact({ kind: 'text', text: 'x' }, { version: '2' });
    expect(fromArtifact(v2, { supportedVersions: ['1'] }).kind).toBe('raw');
    expect(fromArtifact(v2, { supportedVersions: ['1', '2'] }).kind).toBe('text');
  });

  it('negotiates the highest common version and nothing when disjoint', () => {
    expect(negotiateArtifactKindVersion(['1', '2', '3'], ['3', '2'])).toBe('3');
    expect(negotiateArtifactKindVersion(['v2', '1'], ['2'])).toBe('v2');
    expect(negotiateArtifactKindVersion(['1'], ['2'])).toBeUndefined();
    expect(negotiateArtifactKindVersion([], [])).toBeUndefined();
    expect(() => negotiateArtifactKindVersion('1' as never, [])).toThrow(TypeError);
  });
});

describe('ADR-159 r3 receivers refuse to down-version without accept_lower_version_artifacts', () => {
  it('accepts a listed version', () => {
    expect(checkArtifactVersion('1', ['1'])).toEqual({ ok: true });
    expect(checkArtifactVersion('v1', ['1'])).toEqual({ ok: true });
  });

  it('rejects a higher version', () => {
    expect(checkArtifactVersion('2', ['1'])).toEqual({ ok: false, reason: 'higher-than-supported' });
    expect(checkArtifactVersion('2', ['1'], { acceptLowerVersionArtifacts: true })).toEqual({ ok: false, reason: 'higher-than-supported' });
  });

  it('rejects a lower, unlisted version unless opted in', () => {
    expect(checkArtifactVersion('1', ['2'])).toEqual({ ok: false, reason: 'lower-not-accepted' });
    expect(checkArtifactVersion('1', ['2'], { acceptLowerVersionArtifacts: true })).toEqual({ ok: true });
    const v1 = toArtifact({ kind: 'text', text: 'old' });
    expect(fromArtifact(v1, { supportedVersions: ['2'] }).note).toMatch(/lower-not-accepted/);
    expect(fromArtifact(v1, { supportedVersions: ['2'], acceptLowerVersionArtifacts: true })).toMatchObject({ kind: 'text', text: 'old' });
  });

  it('calls malformed versions unknown', () => {
    for (const bad of ['', 'x', '1.0', '-1', '0', 'v']) {
      expect(checkArtifactVersion(bad, ['1'])).toEqual({ ok: false, reason: 'unknown' });
    }
    expect(checkArtifactVersion('1', [])).toEqual({ ok: false, reason: 'unknown' });
  });
});
