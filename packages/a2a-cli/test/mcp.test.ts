import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXIT_CODES, runCli } from '../src/index.js';
import { captureIo, run, startTestAgent, type TestAgent } from './helpers.js';

let signed: TestAgent;
let tampered: TestAgent;
beforeAll(async () => {
  signed = await startTestAgent('signed');
  tampered = await startTestAgent('tampered');
});
afterAll(async () => {
  await signed?.close();
  await tampered?.close();
});

it('a2a mcp serve --agent <url> --http 0 serves the agent as MCP tools until stopped', async () => {
  const controller = new AbortController();
  const captured = captureIo({ signal: controller.signal });
  const exit = runCli(['mcp', 'serve', '--agent', signed.url, '--http', '0', '--allow-insecure'], captured.io);
  await expect.poll(() => captured.out(), { timeout: 10_000 }).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(captured.out().trim())));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['echo']);
  const result = await client.callTool({ name: 'echo', arguments: { text: 'via the cli' } });
  expect(result.isError).toBeFalsy();
  expect((result.content as { text: string }[]).map((c) => c.text).join('')).toContain('via the cli');
  await client.close();
  controller.abort();
  expect(await exit).toBe(0);
});

it('refuses an agent whose card does not verify (exit 2) and a call without --agent (usage)', async () => {
  const bad = await run(['mcp', 'serve', '--agent', tampered.url, '--http', '0', '--allow-insecure']);
  expect(bad.code).toBe(EXIT_CODES.invalidSignature);
  expect(bad.out).toBe('');
  expect((await run(['mcp', 'serve'])).code).toBe(EXIT_CODES.usage);
  expect((await run(['mcp', 'start'])).code).toBe(EXIT_CODES.usage);
});
