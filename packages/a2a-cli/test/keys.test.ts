import { readFile, stat, writeFile } from 'node:fs/promises';
import { createAgentCard } from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/index.js';
import { run, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir?.remove();
});

const card = () =>
  createAgentCard({ baseUrl: 'https://agent.example.com', name: 'File Agent', description: 'A card on disk.', skills: [] });

describe('a2a keygen -> sign-card -> verify-card (spec §8.4.2 signing, §8.4.3 verification)', () => {
  it('keygen prints a private JWK on stdout and the AgentID on stderr', async () => {
    const { code, out, err } = await run(['keygen']);
    expect(code).toBe(0);
    const jwk = JSON.parse(out) as { kty: string; crv: string; d: string; x: string };
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(jwk.d).toBeTypeOf('string');
    expect(err).toMatch(/AgentID: [0-9a-f]{64}/);
  });

  it('keygen --alg ES256 --json has no AgentID; an unknown --alg is a usage error', async () => {
    const { code, out } = await run(['keygen', '--alg', 'ES256', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(out) as { agentId: string | null; publicJwk: { crv: string; d?: string }; privateJwk: { d: string } };
    expect(result.agentId).toBeNull();
    expect(result.publicJwk.crv).toBe('P-256');
    expect(result.publicJwk.d).toBeUndefined();
    expect(result.privateJwk.d).toBeTypeOf('string');
    expect((await run(['keygen', '--alg', 'RS256'])).code).toBe(EXIT_CODES.usage);
  });

  it('round trip: keygen --out, sign-card --agent-id --jku --out, verify-card with the public JWK is valid (0)', async () => {
    const keyFile = dir.file('key.jwk');
    const gen = await run(['keygen', '--out', keyFile, '--json']);
    expect(gen.code).toBe(0);
    const { publicJwk, agentId } = JSON.parse(gen.out) as { publicJwk: unknown; agentId: string };
    expect(((await stat(keyFile)).mode & 0o777).toString(8)).toBe('600');
    const pubFile = dir.file('key.pub.jwk');
    await writeFile(pubFile, JSON.stringify(publicJwk));
    const cardFile = dir.file('card.json');
    await writeFile(cardFile, JSON.stringify(card(), null, 2));
    const signedFile = dir.file('signed.json');

    const sign = await run([
      'sign-card',
      cardFile,
      '--key',
      keyFile,
      '--out',
      signedFile,
      '--agent-id',
      '--jku',
      'https://agent.example.com/.well-known/jwks.json',
    ]);
    expect(sign.code).toBe(0);
    const signed = JSON.parse(await readFile(signedFile, 'utf8')) as { signatures: { protected: string }[] };
    expect(signed.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(signed.signatures[0]!.protected, 'base64url').toString('utf8')) as Record<string, string>;
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JOSE', jku: 'https://agent.example.com/.well-known/jwks.json' });

    const verify = await run(['verify-card', signedFile, '--key', pubFile]);
    expect(verify.code).toBe(EXIT_CODES.ok);
    expect(verify.out).toContain('signature valid');
    expect(verify.out).toContain(`AgentID ${agentId}`);

    const json = await run(['verify-card', signedFile, '--key', pubFile, '--json']);
    expect(JSON.parse(json.out)).toMatchObject({ status: 'valid', agentId });
  });

  it('verify-card: tampered 2, another key 2, unsigned 3', async () => {
    const keyFile = dir.file('k2.jwk');
    await run(['keygen', '--out', keyFile]);
    const cardFile = dir.file('c2.json');
    await writeFile(cardFile, JSON.stringify(card()));
    const signed = await run(['sign-card', cardFile, '--key', keyFile]);
    expect(signed.code).toBe(0);
    const signedFile = dir.file('c2.signed.json');
    await writeFile(signedFile, signed.out);
    expect((await run(['verify-card', signedFile, '--key', keyFile])).code).toBe(EXIT_CODES.ok);

    const tamperedFile = dir.file('c2.tampered.json');
    await writeFile(tamperedFile, JSON.stringify({ ...JSON.parse(signed.out), description: 'changed' }));
    const tampered = await run(['verify-card', tamperedFile, '--key', keyFile]);
    expect(tampered.code).toBe(EXIT_CODES.invalidSignature);
    expect(tampered.err).toContain('tampered');

    const otherKey = dir.file('other.jwk');
    await run(['keygen', '--out', otherKey]);
    expect((await run(['verify-card', signedFile, '--key', otherKey])).code).toBe(EXIT_CODES.invalidSignature);

    expect((await run(['verify-card', cardFile, '--key', keyFile])).code).toBe(EXIT_CODES.unsigned);
  });

  it("a card declaring another key's AgentID is rejected (exit 2)", async () => {
    const a = dir.file('a.jwk');
    const b = dir.file('b.jwk');
    await run(['keygen', '--out', a]);
    await run(['keygen', '--out', b]);
    const cardFile = dir.file('c3.json');
    await writeFile(cardFile, JSON.stringify(card()));
    const withA = await run(['sign-card', cardFile, '--key', a, '--agent-id']);
    const stolen = { ...JSON.parse(withA.out), signatures: undefined };
    const stolenFile = dir.file('c3.stolen.json');
    await writeFile(stolenFile, JSON.stringify(stolen));
    const signedByB = await run(['sign-card', stolenFile, '--key', b]);
    const signedFile = dir.file('c3.signed.json');
    await writeFile(signedFile, signedByB.out);
    const verify = await run(['verify-card', signedFile, '--key', b]);
    expect(verify.code).toBe(EXIT_CODES.invalidSignature);
    expect(verify.err).toContain('AgentID mismatch');
  });

  it('file errors: missing file, invalid JSON, not a card, public key for signing, missing --key', async () => {
    const missing = await run(['verify-card', dir.file('missing.json'), '--key', dir.file('missing.jwk')]);
    expect(missing.code).toBe(EXIT_CODES.failure);
    expect(missing.err).toBe(`error: cannot read ${dir.file('missing.json')}: no such file\n`);

    const bad = dir.file('bad.json');
    await writeFile(bad, '{"name": ');
    const invalid = await run(['sign-card', bad, '--key', bad]);
    expect(invalid.code).toBe(EXIT_CODES.failure);
    expect(invalid.err).toMatch(/^error: .*bad\.json is not valid JSON: .*\n$/);

    const notCard = dir.file('not-card.json');
    await writeFile(notCard, '{"hello": 1}');
    const keyFile = dir.file('k4.jwk');
    const gen = await run(['keygen', '--out', keyFile, '--json']);
    const notACard = await run(['sign-card', notCard, '--key', keyFile]);
    expect(notACard.code).toBe(EXIT_CODES.failure);
    expect(notACard.err).toContain('is not a valid agent card');

    const pub = dir.file('k4.pub.jwk');
    await writeFile(pub, JSON.stringify((JSON.parse(gen.out) as { publicJwk: unknown }).publicJwk));
    const cardFile = dir.file('c4.json');
    await writeFile(cardFile, JSON.stringify(card()));
    const publicOnly = await run(['sign-card', cardFile, '--key', pub]);
    expect(publicOnly.code).toBe(EXIT_CODES.failure);
    expect(publicOnly.err).toContain('holds a public key');

    expect((await run(['sign-card', cardFile])).code).toBe(EXIT_CODES.usage);
    expect((await run(['verify-card', cardFile])).code).toBe(EXIT_CODES.usage);
  });
});
