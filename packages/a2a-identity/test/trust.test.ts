import { describe, expect, it } from 'vitest';
import { createAllowAllIdentityResolver, createAllowlistIdentityResolver } from '../src/index.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('ADR-159 r2 — IdentityResolver', () => {
  it('allowlist allows exactly the listed AgentIDs (case-insensitive)', () => {
    const resolver = createAllowlistIdentityResolver([A.toUpperCase()]);
    expect(resolver.isAllowed(A)).toBe(true);
    expect(resolver.isAllowed(B)).toBe(false);
    expect(resolver.isAllowed(42 as never)).toBe(false);
    expect(resolver.size).toBe(1);
  });

  it('allowlist refuses entries that are not AgentIDs', () => {
    expect(() => createAllowlistIdentityResolver(['nope'])).toThrow(TypeError);
    expect(() => createAllowlistIdentityResolver(null as never)).toThrow(TypeError);
  });

  it('allow-all allows everyone and reports whom, once each', () => {
    const seen: string[] = [];
    const resolver = createAllowAllIdentityResolver({ onAllow: (id) => seen.push(id) });
    expect(resolver.isAllowed(A)).toBe(true);
    expect(resolver.isAllowed(B)).toBe(true);
    expect(resolver.isAllowed(A)).toBe(true);
    expect(resolver.allowed()).toEqual([A, B]);
    expect(seen).toEqual([A, B]);
  });
});
