import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoAgent, startEchoAgent } from '../../echo-agent/src/index.js';
import { type ConsoleServer, createConsoleServer } from '../src/server/index.js';
import { startApiKeyAgent, startGovernedAgent, startOfficialAgent, startV03Agent, type TestAgent } from './helpers/agents.js';
import { launchChromium, SCREENSHOTS, UI_ROOT } from './helpers/browser.js';

// The console in Debian's Chromium against real agents on 127.0.0.1: our echo agent (signed card,
// no CORS: reached through the relay), a governed agent (CORS for the console: reached directly),
// the official @a2a-js/sdk agent and a v0.3 agent. The run writes docs/console/*.png.

let browser: Browser;
let consoleServer: ConsoleServer;
let consoleUrl: string;
let echo: EchoAgent;
const agents: TestAgent[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  consoleServer = createConsoleServer({ uiRoot: UI_ROOT, relay: { allowLoopback: true } });
  consoleUrl = await consoleServer.listen(0);
  echo = await startEchoAgent({ wordDelayMs: 120 });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(agents.map((agent) => agent.close()));
  await echo?.close();
  await consoleServer?.close();
});

async function openAgent(url: string, options: { loopbackJwks?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(`${consoleUrl}/#/agent`);
  await page.getByTestId('agent-url').fill(url);
  if (options.loopbackJwks) await page.getByTestId('allow-loopback').check();
  await page.getByTestId('agent-open').click();
  await page.getByTestId('card-panel').waitFor();
  return page;
}

async function send(page: Page, text: string, options: { stream?: boolean; skill?: string } = {}): Promise<void> {
  await page.getByTestId('chat-text').fill(text);
  const stream = page.getByTestId('chat-stream');
  if (options.stream === true) await stream.check();
  if (options.stream === false) await stream.uncheck();
  if (options.skill !== undefined) await page.getByTestId('chat-skill').selectOption(options.skill);
  await page.getByTestId('chat-send').click();
}

const taskState = (page: Page) => page.getByTestId('task-state');

describe('the console in Chromium', () => {
  it('opens our echo agent: the card verdict names the key and the bound AgentID; it streams a reply through the relay', async () => {
    const page = await openAgent(echo.url, { loopbackJwks: true });
    await expect(page.getByTestId('verdict-status').textContent()).resolves.toBe('signature valid');
    expect(await page.getByTestId('verdict-kid').textContent()).toContain('EdDSA');
    const agentId = await page.getByTestId('verdict-agent-id').textContent();
    expect(agentId).toContain(echo.agentId);
    expect(agentId).toContain('bound');
    expect(await page.getByTestId('verdict-pinning').textContent()).toContain('unpinned');
    expect(await page.getByTestId('card-protocol').textContent()).toContain('1.0');
    expect(await page.getByTestId('card-skills').textContent()).toContain('Echo');
    await page.screenshot({ path: `${SCREENSHOTS}/agent-card.png`, fullPage: true });

    await send(page, 'hello from the console', { stream: true });
    await taskState(page).filter({ hasText: 'completed' }).waitFor();
    expect(await page.getByTestId('artifact').textContent()).toContain('hello from the console');
    expect(await page.getByTestId('task-statuses').textContent()).toContain('working');
    // No CORS on the echo agent: the browser was refused, the relay carried the calls.
    expect(await page.getByTestId('log-via').allTextContents()).toContain('relay');
    await page.screenshot({ path: `${SCREENSHOTS}/conversation.png`, fullPage: true });
    await page.getByTestId('log-row').first().click();
    await page.getByTestId('log-panel').screenshot({ path: `${SCREENSHOTS}/raw-log.png` });
    await page.close();
  });

  it('an unsigned-looking verdict is not faked: without the loopback JWKS the same card is "untrusted key"', async () => {
    const page = await openAgent(echo.url);
    await expect(page.getByTestId('verdict-status').textContent()).resolves.toBe('untrusted key');
    await page.close();
  });

  it('stops reading a stream, shows the resume cursor, resubscribes from it, and cancels a running task', async () => {
    const page = await openAgent(echo.url, { loopbackJwks: true });
    const words = Array.from({ length: 24 }, (_, i) => `w${i}`).join(' ');
    await send(page, words, { stream: true });
    await page.getByTestId('artifact').waitFor();
    await page.getByRole('button', { name: 'Stop reading' }).click();
    const cursor = page.getByTestId('task-cursor').locator('code');
    await cursor.waitFor();
    const id = await cursor.textContent();
    expect(id).toBeTruthy();
    await page.getByTestId('task-resubscribe').click();
    await expect(page.getByTestId('conversation').textContent()).resolves.toContain(`resubscribed after event ${id}`);
    await taskState(page).filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('artifact').textContent()).toContain('w23');
    await page.screenshot({ path: `${SCREENSHOTS}/task-resumed.png`, fullPage: true });

    await send(page, words, { stream: true });
    await taskState(page).filter({ hasText: 'working' }).waitFor();
    await page.getByTestId('task-cancel').click();
    await taskState(page).filter({ hasText: 'canceled' }).waitFor();
    await page.getByTestId('tasks-state').selectOption('CANCELED');
    await page.getByTestId('tasks-list-button').click();
    await page.getByTestId('task-row').first().waitFor();
    expect(await page.getByTestId('task-row').count()).toBe(1);
    await page.close();
  });

  it('shows a governed agent’s refusal with its reason (called directly: its CORS admits the console)', async () => {
    const governed = await startGovernedAgent(consoleUrl);
    agents.push(governed);
    const page = await openAgent(governed.url);
    await expect(page.getByTestId('verdict-status').textContent()).resolves.toBe('unsigned');
    await send(page, 'do something else', { stream: false, skill: 'not-a-skill' });
    const reason = page.getByTestId('error-reason');
    await reason.waitFor();
    expect(await reason.textContent()).toBeTruthy();
    expect(await page.getByTestId('error').textContent()).toMatch(/skill|polic/i);
    await page.screenshot({ path: `${SCREENSHOTS}/refusal.png`, fullPage: true });
    await send(page, 'allowed', { stream: false, skill: 'echo' });
    await taskState(page).filter({ hasText: 'completed' }).waitFor();
    expect(await page.getByTestId('log-via').allTextContents()).not.toContain('relay');
    await page.close();
  });

  it('talks to the official @a2a-js/sdk agent: send, stream, cancel', async () => {
    const official = await startOfficialAgent();
    agents.push(official);
    const page = await openAgent(official.url);
    expect(await page.getByTestId('card-name').textContent()).toContain('official');
    await send(page, 'hi', { stream: false });
    await taskState(page).filter({ hasText: 'completed' }).waitFor();
    expect(await page.getByTestId('artifact').textContent()).toContain('echo: hi');
    await send(page, 'streamed', { stream: true });
    await page.getByTestId('artifact').filter({ hasText: 'echo: streamed' }).waitFor();
    // The same agent over its REST binding.
    await page.getByTestId('binding').selectOption('HTTP+JSON');
    await send(page, 'over rest', { stream: false });
    await page.getByTestId('artifact').filter({ hasText: 'echo: over rest' }).waitFor();
    expect((await page.getByTestId('log-row').allTextContents()).join(' ')).toContain('/a2a/rest/message:send');
    // A held task, sent without waiting for it (returnImmediately), then followed and canceled.
    await page.getByTestId('chat-stream').uncheck();
    await page.getByTestId('chat-return-immediately').check();
    await send(page, 'hold', { stream: false });
    await taskState(page)
      .filter({ hasText: /submitted|working/ })
      .waitFor();
    await page.getByTestId('task-cancel').click();
    await taskState(page).filter({ hasText: 'canceled' }).waitFor();
    await page.close();
  });

  it('reads a v0.3 agent’s card and talks v0.3 JSON-RPC to it', async () => {
    const legacy = await startV03Agent();
    agents.push(legacy);
    const page = await openAgent(legacy.url);
    expect(await page.getByTestId('card-protocol').textContent()).toContain('0.3');
    await send(page, 'old friend', { stream: false });
    await taskState(page).filter({ hasText: 'completed' }).waitFor();
    expect(await page.getByTestId('artifact').textContent()).toContain('echo: old friend');
    const bodies = await page.getByTestId('log-row').allTextContents();
    expect(bodies.join(' ')).toContain('message/send');
    await page.close();
  });

  it('drives an API-key agent from its securitySchemes: the key stays in this tab, reaches only that agent, never the log', async () => {
    const seen: string[] = [];
    const keyed = await startApiKeyAgent('k-0123456789', seen);
    agents.push(keyed);
    const page = await openAgent(keyed.url);
    expect(await page.getByTestId('auth-panel').textContent()).toContain('API key in header "X-API-Key"');
    await send(page, 'no key', { stream: false });
    await page.getByTestId('error').waitFor();
    expect(seen).toEqual([]);

    await page.getByTestId('auth-secret').fill('k-0123456789');
    await page.getByTestId('auth-apply').click();
    await send(page, 'with key', { stream: false });
    await taskState(page).filter({ hasText: 'completed' }).waitFor();
    expect(seen).toEqual(['k-0123456789']);
    const stored = await page.evaluate((origin) => {
      const key = `a2a-console:credential:${origin}`;
      return { session: sessionStorage.getItem(key), local: localStorage.getItem(key) };
    }, keyed.url);
    expect(stored.session).toContain('k-0123456789');
    expect(stored.local).toBeNull();
    // The raw log shows the header, not the key.
    await page.getByTestId('log-row').first().click();
    const logged = await page.getByTestId('log-request').textContent();
    expect(logged).toContain('x-api-key');
    expect(logged).not.toContain('k-0123456789');
    expect(await page.getByTestId('log-panel').textContent()).not.toContain('k-0123456789');
    await page.screenshot({ path: `${SCREENSHOTS}/auth.png`, fullPage: true });
    // Asked to remember, the key moves to localStorage (and out of sessionStorage).
    await page.getByLabel('remember').check();
    await page.getByTestId('auth-apply').click();
    const remembered = await page.evaluate((origin) => {
      const key = `a2a-console:credential:${origin}`;
      return { session: sessionStorage.getItem(key), local: localStorage.getItem(key) };
    }, keyed.url);
    expect(remembered.session).toBeNull();
    expect(remembered.local).toContain('k-0123456789');
    await page.getByRole('button', { name: 'Forget' }).click();
    const forgotten = await page.evaluate((origin) => {
      const key = `a2a-console:credential:${origin}`;
      return [sessionStorage.getItem(key), localStorage.getItem(key)];
    }, keyed.url);
    expect(forgotten).toEqual([null, null]);
    await page.close();
  });
});
