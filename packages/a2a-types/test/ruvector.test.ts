import { describe, expect, it } from 'vitest';
import {
  RUVECTOR_EXTENSION_URI,
  RUVECTOR_KEYS,
  RUVECTOR_NAMESPACE,
  readRuvectorCardParams,
  readRuvectorMetadata,
  withRuvectorMetadata,
} from '../src/index.js';

const AGENT_ID = 'ab'.repeat(32);

describe('ruvector vendor keys (ADR-159)', () => {
  it('reads the card extension params', () => {
    const card = {
      capabilities: {
        extensions: [
          { uri: 'https://other' },
          {
            uri: RUVECTOR_EXTENSION_URI,
            params: { agent_id: AGENT_ID, webhook_algos: ['ed25519'], memory: { type: 'rulake', witness_format_version: 1 }, extra: 1 },
          },
        ],
      },
    };
    expect(readRuvectorCardParams(card)).toEqual({
      agent_id: AGENT_ID,
      webhook_algos: ['ed25519'],
      memory: { type: 'rulake', witness_format_version: 1 },
    });
  });
  it('absent or malformed params read as undefined', () => {
    expect(readRuvectorCardParams({ capabilities: {} })).toBeUndefined();
    expect(
      readRuvectorCardParams({ capabilities: { extensions: [{ uri: RUVECTOR_EXTENSION_URI, params: { agent_id: 'ABC' } }] } }),
    ).toBeUndefined();
    expect(readRuvectorCardParams({ capabilities: { extensions: [{ uri: RUVECTOR_EXTENSION_URI }] } })).toEqual({});
  });
  it('reads and merges metadata.ruvector without touching other keys', () => {
    expect(readRuvectorMetadata(undefined)).toBeUndefined();
    expect(readRuvectorMetadata({ ruvector: [1] })).toBeUndefined();
    expect(readRuvectorMetadata({ ruvector: 'x' })).toBeUndefined();
    const metadata = { other: 1, [RUVECTOR_NAMESPACE]: { [RUVECTOR_KEYS.artifactKind]: 'report' } };
    const merged = withRuvectorMetadata(metadata, { [RUVECTOR_KEYS.artifactKindVersion]: '1' });
    expect(merged).toEqual({ other: 1, ruvector: { artifact_kind: 'report', artifact_kind_version: '1' } });
    expect(metadata.ruvector).toEqual({ artifact_kind: 'report' });
    expect(withRuvectorMetadata(undefined, { context: { traceId: 't' } })).toEqual({ ruvector: { context: { traceId: 't' } } });
  });
});
