import { type AgentCard, RUVECTOR_EXTENSION_URI } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { artifactCardParams, memoryExtensionParams, readArtifactKindVersions, readMemoryParams } from '../src/index.js';

function cardWith(params: Record<string, unknown> | undefined): AgentCard {
  return {
    name: 'peer',
    description: 'a peer',
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: params === undefined ? {} : { extensions: [{ uri: RUVECTOR_EXTENSION_URI, params }] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  } as unknown as AgentCard;
}

describe('ADR-159 open question 2: metadata.ruvector.memory on the AgentCard', () => {
  it('builds the ADR example shape', () => {
    expect(memoryExtensionParams({ shard: 'gs://bucket/prod/', capabilities: ['read'], witnessFormatVersion: 2 })).toEqual({
      type: 'rvlake',
      shard: 'gs://bucket/prod/',
      capabilities: ['read'],
      witness_format_version: 2,
    });
    expect(memoryExtensionParams()).toEqual({ type: 'rvlake', capabilities: ['read'], witness_format_version: 1 });
  });

  it('round-trips through the card extension params', () => {
    const params = artifactCardParams({ shard: 'file:///srv/lake/', capabilities: ['read', 'search'] });
    const card = JSON.parse(JSON.stringify(cardWith(params))) as AgentCard;
    expect(readMemoryParams(card)).toEqual(params.memory);
    expect(readArtifactKindVersions(card)).toEqual(['1']);
  });

  it('is undefined for a card without the extension or with another memory type', () => {
    expect(readMemoryParams(cardWith(undefined))).toBeUndefined();
    expect(readMemoryParams(cardWith({ memory: { type: 'redis' } }))).toBeUndefined();
    expect(readMemoryParams(cardWith({ memory: 'bogus' }))).toBeUndefined();
  });

  it('drops capabilities it does not know', () => {
    expect(readMemoryParams(cardWith({ memory: { type: 'rvlake', capabilities: ['read', 'root'] } }))).toEqual({
      type: 'rvlake',
      capabilities: ['read'],
    });
  });

  it('rejects programmer errors', () => {
    expect(() => memoryExtensionParams({ capabilities: ['admin' as never] })).toThrow(TypeError);
    expect(() => memoryExtensionParams({ witnessFormatVersion: 0 })).toThrow(RangeError);
  });
});
