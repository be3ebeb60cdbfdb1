import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '@a2aplane/a2a-cli';
import { createProber, type RegistryService, startRegistryService } from '@a2aplane/a2a-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TOKEN = 'interop-operator-token-0123456789';
let child: ChildProcess;
let url: string;
let dir: string;
let registry: RegistryService;

/** Runs the CLI in process; resolves its exit code and output. */
async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: { A2A_REGISTRY_TOKEN: TOKEN },
  });
  return { code, out, err };
}

function nextLine(stream: NodeJS.ReadableStream, skip: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const lines = text.split('\n');
      if (lines.length > skip + 1) {
        stream.off('data', onData);
        resolve((lines[skip] as string).trim());
      }
    };
    stream.on('data', onData);
    child.once('exit', (code) => reject(new Error(`official agent exited with ${code}`)));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-registry-interop-'));
  child = spawn(process.execPath, [fileURLToPath(new URL('./official-agent.fixture.mjs', import.meta.url))], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const stdout = child.stdout as NodeJS.ReadableStream;
  url = await nextLine(stdout, 0);
  registry = await startRegistryService({ operatorTokens: { operator: TOKEN }, registryOptions: { allowLoopback: true }, prober: false });
});

afterAll(async () => {
  await registry?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('interop: an official @a2a-js/sdk agent in the registry', () => {
  it('enrolls with a card signed by our CLI and is probed conformant over JSONRPC and HTTP+JSON', async () => {
    const keyFile = join(dir, 'key.jwk');
    const keygen = await cli(['keygen', '--out', keyFile, '--json']);
    expect(keygen.code).toBe(0);
    const { publicJwk, agentId } = JSON.parse(keygen.out) as { publicJwk: object; agentId: string };
    await writeFile(join(dir, 'jwks.json'), JSON.stringify({ keys: [publicJwk] }));
    const card = {
      name: 'official',
      description: 'the @a2a-js/sdk reference server',
      version: '1.0.0',
      supportedInterfaces: [
        { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
    };
    await writeFile(join(dir, 'card.json'), JSON.stringify(card));
    expect((await cli(['sign-card', join(dir, 'card.json'), '--key', keyFile, '--agent-id', '--out', join(dir, 'signed.json')])).code).toBe(
      0,
    );
    const signed = await readFile(join(dir, 'signed.json'), 'utf8');
    const ready = nextLine(child.stdout as NodeJS.ReadableStream, 0);
    child.stdin?.write(`${JSON.stringify(JSON.parse(signed))}\n`);
    expect(await ready).toBe('ready');

    const enrolled = await cli([
      'registry',
      'enroll',
      join(dir, 'signed.json'),
      '--registry',
      registry.url,
      '--jwks',
      join(dir, 'jwks.json'),
    ]);
    expect(enrolled).toMatchObject({ code: 0, err: '' });
    expect(enrolled.out).toContain(`enrolled: ${agentId}  official  active`);

    const view = await registry.registry.lookupAgent(agentId);
    const health = await createProber(registry.registry, { allowLoopback: true }).probe(view as NonNullable<typeof view>);
    expect(health).toMatchObject({ status: 'up', reason: '', consecutiveFailures: 0 });
    const found = await cli(['registry', 'search', '--registry', registry.url, '--skill', 'echo', '--health', 'up', '--json']);
    expect(JSON.parse(found.out).results.map((entry: { 'x-a2aplane': { agentId: string } }) => entry['x-a2aplane'].agentId)).toEqual([
      agentId,
    ]);
  });
});
