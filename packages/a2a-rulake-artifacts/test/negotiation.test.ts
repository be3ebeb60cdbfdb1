import type { AgentCard } from '@a2aplane/a2a-types';
import { RUVECTOR_EXTENSION_URI } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { artifactCardParams, artifactVersionNegotiator } from '../src/index.js';

const cardWith = (params?: Record<string, unknown>): AgentCard => ({
  name: 'peer',
  description: 'p',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: params === undefined ? {} : { extensions: [{ uri: RUVECTOR_EXTENSION_URI, params }] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

describe('artifactVersionNegotiator (negotiation on discovery)', () => {
  it('agrees on the highest common version advertised by artifactCardParams', () => {
    const negotiate = artifactVersionNegotiator({ supported: ['1', '2'] });
    expect(negotiate({ id: 'p', card: cardWith(artifactCardParams({ artifactKindVersions: ['v1', '2', '3'] })) })).toEqual({
      ok: true,
      terms: { artifactKindVersion: '2' },
    });
    expect(negotiate({ id: 'p', card: cardWith(artifactCardParams()) })).toEqual({ ok: true, terms: { artifactKindVersion: '1' } });
  });

  it('refuses a peer with no common version, with both lists in the metadata', () => {
    const verdict = artifactVersionNegotiator()({ id: 'p', card: cardWith({ artifact_kind_versions_supported: ['2'] }) });
    expect(verdict).toMatchObject({ ok: false, metadata: { local: '1', remote: '2' } });
    expect(verdict.ok ? '' : verdict.reason).toContain('no common artifact kind version');
  });

  it('a card without the list is accepted, unless requireAdvertised', () => {
    expect(artifactVersionNegotiator()({ id: 'p', card: cardWith() })).toEqual({ ok: true });
    expect(artifactVersionNegotiator({ requireAdvertised: true })({ id: 'p', card: cardWith() }).ok).toBe(false);
    expect(() => artifactVersionNegotiator({ supported: [] })).toThrow(TypeError);
  });
});
