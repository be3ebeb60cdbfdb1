import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleServer, createConsoleServer } from '../src/server/index.js';
import { closeServer, listen, type TestAgent } from './helpers/agents.js';
import { launchChromium, UI_ROOT } from './helpers/browser.js';
import { HOSTILE_HTML, INLINE_TEXT, PNG_BASE64, startPartsAgent } from './helpers/parts-agent.js';

// Every part kind the console renders, from a real agent (our server, no CORS: reached through
// the relay), in Debian's Chromium. A second local server stands for the host a URL file part
// names: nothing may fetch it until the user follows the link.

let browser: Browser;
let consoleServer: ConsoleServer;
let consoleUrl: string;
let agent: TestAgent;
let fileHost: Awaited<ReturnType<typeof listen>>;
const fileHostHits: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  consoleServer = createConsoleServer({ uiRoot: UI_ROOT, relay: { allowLoopback: true } });
  consoleUrl = await consoleServer.listen(0);
  fileHost = await listen((req, res) => {
    fileHostHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
  });
  agent = await startPartsAgent(`${fileHost.url}/files/report.pdf`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await agent?.close();
  if (fileHost) await closeServer(fileHost.server);
  await consoleServer?.close();
});

async function openParts(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(`${consoleUrl}/#/agent`);
  await page.getByTestId('agent-url').fill(agent.url);
  await page.getByTestId('agent-open').click();
  await page.getByTestId('card-panel').waitFor();
  return page;
}

describe('the console renders every part kind (Chromium, real agent)', () => {
  it('shows text, data, inline-bytes files, URL files and a typed artifact; agent HTML stays text', async () => {
    const page = await openParts();
    await page.getByTestId('chat-text').fill('show me every part');
    await page.getByTestId('chat-stream').uncheck();
    await page.getByTestId('chat-send').click();
    await page.getByTestId('task-state').filter({ hasText: 'completed' }).waitFor();

    const parts = page.getByTestId('artifact').filter({ hasText: 'every-part' });
    // Text.
    expect(await parts.getByTestId('part-text').allTextContents()).toEqual(['plain text part', HOSTILE_HTML]);
    // Data: the JSON, pretty-printed, with its media type.
    const data = parts.getByTestId('part-data');
    expect(await data.textContent()).toContain('data application/json');
    expect(JSON.parse((await data.locator('pre').textContent()) ?? '')).toEqual({
      score: 0.9,
      tags: ['a', 'b'],
      note: HOSTILE_HTML,
    });
    // Inline bytes: a download of a data: URL (no request anywhere); an image is shown inline.
    const files = parts.getByTestId('part-file');
    expect(await files.count()).toBe(2);
    const textFile = files.filter({ hasText: 'hello.txt' });
    expect(await textFile.textContent()).toContain('text/plain');
    const download = textFile.getByRole('link', { name: 'download' });
    expect(await download.getAttribute('download')).toBe('hello.txt');
    expect(await download.getAttribute('href')).toBe(`data:text/plain;base64,${Buffer.from(INLINE_TEXT).toString('base64')}`);
    const image = files.filter({ hasText: 'dot.png' }).locator('img');
    expect(await image.getAttribute('src')).toBe(`data:image/png;base64,${PNG_BASE64}`);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    // A URL: a link that opens in a new tab without an opener, not fetched, not relayed.
    const urlParts = parts.getByTestId('part-url');
    expect(await urlParts.count()).toBe(2);
    const link = urlParts.filter({ hasText: 'report.pdf' }).locator('a');
    expect(await link.getAttribute('href')).toBe(`${fileHost.url}/files/report.pdf`);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await urlParts.filter({ hasText: 'report.pdf' }).locator('img, iframe, embed, object').count()).toBe(0);
    // A script URL is shown as code, never as a link.
    const scriptUrl = urlParts.filter({ hasText: 'not-a-link' });
    expect(await scriptUrl.locator('a').count()).toBe(0);
    expect(await scriptUrl.locator('code').textContent()).toBe('javascript:window.__partsXss=2');
    // Typed artifact (a2a-rulake-artifacts): its kind and version, on the artifact and its part.
    const typed = page.getByTestId('artifact').filter({ hasText: 'typed-verdict' });
    expect(await typed.getByTestId('artifact-kind').textContent()).toBe('StructuredJson v1');
    expect(await typed.getByTestId('part-data').textContent()).toContain('StructuredJson v1');
    expect(JSON.parse((await typed.getByTestId('part-data').locator('pre').textContent()) ?? '')).toEqual({ verdict: 'ok' });
    // Agent HTML (artifact text, data, file name, status message) is text: no element made, no handler run.
    expect(await scriptUrl.textContent()).toContain(`not-a-link ${HOSTILE_HTML}`);
    expect(await page.getByTestId('task-statuses').textContent()).toContain(`done ${HOSTILE_HTML}`);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __partsXss?: number }).__partsXss)).toBeUndefined();

    // The console asked nothing of the file host: not the page, not the relay (the log names only the agent).
    expect(fileHostHits).toEqual([]);
    const logged = (await page.getByTestId('log-row').allTextContents()).join(' ');
    expect(logged).not.toContain(fileHost.url);
    expect(await page.getByTestId('log-via').allTextContents()).toContain('relay');
    await page.close();
  });

  it('renders a Message reply (no task) by the same rules: data as JSON, agent HTML as text', async () => {
    const page = await openParts();
    await page.getByTestId('chat-text').fill('message');
    await page.getByTestId('chat-send').click();
    const reply = page.getByTestId('message-agent');
    await reply.waitFor();
    expect(await reply.getByTestId('part-text').textContent()).toBe(`reply ${HOSTILE_HTML}`);
    expect(JSON.parse((await reply.getByTestId('part-data').locator('pre').textContent()) ?? '')).toEqual({ direct: true });
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __partsXss?: number }).__partsXss)).toBeUndefined();
    await page.close();
  });
});
