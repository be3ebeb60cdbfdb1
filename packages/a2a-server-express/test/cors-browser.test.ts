import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../src/fetch/index.js';
import { createNodeHttpHandler } from '../src/index.js';
import { createConformanceServer } from './conformance/agent.js';
import { nodeFetchListener } from './conformance/node-fetch-host.js';

// CORS as a real browser enforces it (Debian's chromium, driven by playwright-core; .ci/run
// installs it). Pages and agent are all on 127.0.0.1: another port is another origin.

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(listener: Listener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const page = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
};

/** Run in the page: a JSON-RPC SendMessage with the A2A headers (a preflighted request). */
async function callFromPage(agentUrl: string): Promise<string> {
  const response = await fetch(`${agentUrl}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'from a page' }] } },
    }),
  });
  const body = (await response.json()) as { result: { task: { status: { state: string } } } };
  return body.result.task.status.state;
}

/** The same call, answering the error's name when the browser refuses it (each runs in the page on its own). */
async function refusalFromPage(agentUrl: string): Promise<string> {
  try {
    await fetch(`${agentUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    return 'read';
  } catch (error) {
    return (error as Error).name;
  }
}

let browser: Browser;
let allowedPage: Awaited<ReturnType<typeof listen>>;
let otherPage: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  allowedPage = await listen((_req, res) => page(res));
  otherPage = await listen((_req, res) => page(res));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (allowedPage) await close(allowedPage.server);
  if (otherPage) await close(otherPage.server);
});

const bindings = {
  'node:http': (server: ReturnType<typeof createConformanceServer>, origin: string): Listener =>
    createNodeHttpHandler(server, { cors: { origins: [origin], maxAgeSeconds: 600 } }),
  fetch: (server: ReturnType<typeof createConformanceServer>, origin: string): Listener => {
    const handle = createFetchHandler(server, { cors: { origins: [origin], maxAgeSeconds: 600 } });
    return nodeFetchListener(async (request) => (await handle(request)) ?? new Response(null, { status: 404 }));
  },
};

describe.each(Object.keys(bindings) as (keyof typeof bindings)[])('CORS in Chromium: %s binding', (binding) => {
  it('a page of an allowed origin calls the agent after one preflight, then from the preflight cache; another origin cannot', async () => {
    const methods: string[] = [];
    let listener: Listener = (_req, res) => res.writeHead(503).end();
    const agent = await listen((req, res) => {
      methods.push(req.method ?? '');
      listener(req, res);
    });
    const server = createConformanceServer(agent.url);
    listener = bindings[binding](server, allowedPage.url);
    const context = await browser.newContext();
    try {
      const allowed = await context.newPage();
      await allowed.goto(allowedPage.url);
      expect(await allowed.evaluate(callFromPage, agent.url)).toBe('TASK_STATE_COMPLETED');
      expect(methods).toEqual(['OPTIONS', 'POST']);
      expect(await allowed.evaluate(callFromPage, agent.url)).toBe('TASK_STATE_COMPLETED');
      // Access-Control-Max-Age: the browser asks once.
      expect(methods).toEqual(['OPTIONS', 'POST', 'POST']);

      const other = await context.newPage();
      await other.goto(otherPage.url);
      const refused = await other.evaluate(refusalFromPage, agent.url);
      expect(refused).toBe('TypeError');
      // The refused preflight never let the POST through.
      expect(methods.filter((method) => method === 'POST')).toHaveLength(2);
      // The card is a public document: any page may read it.
      const name = await other.evaluate(
        async (url) => ((await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { name: string }).name,
        agent.url,
      );
      expect(name).toBe('conformance');
    } finally {
      await context.close();
      await server.close();
      await close(agent.server);
    }
  }, 60_000);
});
