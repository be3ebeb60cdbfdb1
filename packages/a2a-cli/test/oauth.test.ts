import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityProvider, type TestIdentityProvider } from '../../a2a-server-express/test/helpers/oidc-provider.js';
import { EXIT_CODES, runCli } from '../src/index.js';
import { captureIo, run, tempDir } from './helpers.js';

/** `a2a serve --oidc-issuer` and `a2a send --oauth-client-id` against a real OpenID provider (oidc-provider, in process). */

let idp: TestIdentityProvider;
let dir: Awaited<ReturnType<typeof tempDir>>;
let url: string;
let stop: () => Promise<number>;

beforeAll(async () => {
  idp = await startIdentityProvider();
  dir = await tempDir();
  const config = dir.file('a2aplane.json');
  // An operator scope rule: every skill needs skill:echo.
  await writeFile(
    config,
    JSON.stringify({ recursion: { max_call_depth: 4 }, scopes: { rules: [{ skills: ['*'], scopes: ['skill:echo'] }] } }),
  );
  const controller = new AbortController();
  const captured = captureIo({ signal: controller.signal });
  const exit = runCli(
    ['serve', '--json', '--config', config, '--oidc-issuer', idp.issuer, '--audience', idp.audience, '--allow-insecure'],
    captured.io,
  );
  let settled: number | undefined;
  void exit.then((code) => {
    settled = code;
  });
  for (let i = 0; i < 500 && !captured.out().includes('\n') && settled === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  if (settled !== undefined) throw new Error(`serve exited ${settled}: ${captured.err()}`);
  url = (JSON.parse(captured.out().split('\n')[0] as string) as { url: string }).url;
  stop = async () => {
    controller.abort();
    return exit;
  };
});

afterAll(async () => {
  await stop?.();
  await dir?.remove();
  await idp?.close();
});

describe('OAuth 2 / OpenID Connect in the CLI', () => {
  it('serve advertises the openIdConnect scheme on its card', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { securitySchemes?: Record<string, unknown> };
    expect(card.securitySchemes).toEqual({ oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } });
  });

  it('send gets a token with the client credentials and is served', async () => {
    const result = await run(['send', url, 'hello', '--allow-insecure', '--oauth-client-id', idp.clientId, '--oauth-scope', 'skill:echo'], {
      env: { A2A_OAUTH_CLIENT_SECRET: idp.clientSecret },
    });
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toContain('hello');
  });

  it("a token without the scope the operator config's scope rules require is refused (FORBIDDEN)", async () => {
    const result = await run(
      ['send', url, 'hello', '--allow-insecure', '--oauth-client-id', idp.clientId, '--oauth-scope', 'skill:admin'],
      {
        env: { A2A_OAUTH_CLIENT_SECRET: idp.clientSecret },
      },
    );
    expect(result.code).toBe(1);
    expect(result.err).toContain('do not grant skill');
  });

  it('send without a token is refused (UNAUTHENTICATED)', async () => {
    const result = await run(['send', url, 'hello', '--allow-insecure']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('Credentials are required');
  });

  it('send with a wrong secret fails without printing the secret', async () => {
    const result = await run([
      'send',
      url,
      'hello',
      '--allow-insecure',
      '--oauth-client-id',
      idp.clientId,
      '--oauth-client-secret',
      'not-the-secret',
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('invalid_client');
    expect(result.err).not.toContain('not-the-secret');
  });

  it('refuses half an OAuth configuration as a usage error', async () => {
    expect((await run(['send', url, 'hi', '--oauth-client-secret', 's'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['send', url, 'hi', '--oauth-client-id', 'a2a-caller'])).code).toBe(EXIT_CODES.usage);
    expect((await run(['serve', '--config', dir.file('a2aplane.json'), '--oidc-issuer', idp.issuer])).code).toBe(EXIT_CODES.usage);
    expect((await run(['serve', '--config', dir.file('a2aplane.json'), '--oidc-issuer', idp.issuer, '--audience', 'x'])).code).toBe(
      EXIT_CODES.usage,
    ); // http issuer without --allow-insecure
  });
});
