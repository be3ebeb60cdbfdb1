import { type RegistryService, startRegistryService } from '@a2aplane/a2a-registry';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoAgent, startEchoAgent } from '../../echo-agent/src/index.js';
import { type ConsoleServer, createConsoleServer, createMesh, type Mesh } from '../src/server/index.js';
import { launchChromium, SCREENSHOTS, UI_ROOT } from './helpers/browser.js';
import { startTracedMesh, type TracedMesh } from './helpers/mesh-agents.js';

// The mesh views in Debian's Chromium: agents instrumented with a2a-otel send their spans through
// the standard OTLP/HTTP exporter to the console's /v1/traces; a registry with two enrolled agents
// is the one the console was started with. The run writes docs/console/mesh-*.png.

const TOKEN = 'mesh-browser-session-token';
let browser: Browser;
let consoleServer: ConsoleServer;
let consoleUrl: string;
let mesh: Mesh;
let traced: TracedMesh;
let registry: RegistryService;
const echoes: EchoAgent[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  registry = await startRegistryService({ registryOptions: { allowLoopback: true }, prober: { intervalMs: 200 } });
  for (let i = 0; i < 2; i++) {
    const echo = await startEchoAgent();
    echoes.push(echo);
    const cardText = await (await fetch(`${echo.url}/.well-known/agent-card.json`)).text();
    await registry.registry.enroll({ card: cardText, tier: String(i + 1) }, { operator: 'ops' });
  }
  mesh = createMesh({ registryUrl: registry.url });
  consoleServer = createConsoleServer({
    uiRoot: UI_ROOT,
    routes: mesh.routes,
    sessionToken: TOKEN,
    relay: { allowLoopback: true, isListedOrigin: mesh.isListedOrigin },
  });
  consoleUrl = await consoleServer.listen(0);
  traced = await startTracedMesh(consoleUrl);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await traced?.close();
  await Promise.all(echoes.map((echo) => echo.close()));
  await registry?.close();
  await consoleServer?.close();
});

describe('the mesh views in Chromium', () => {
  it('shows a delegation A -> B from the agents’ OTLP export: the tree with AgentIDs and depths, the budget refusal with its reason, the spend', async () => {
    await traced.delegate();
    const [summary] = mesh.traces.list();
    expect(summary?.hops).toBe(3);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${consoleUrl}/#/mesh`);
    const row = page.getByTestId('trace-row').first();
    await row.waitFor();
    expect(await row.textContent()).toContain('BUDGET_EXCEEDED');
    await page.getByTestId('traces-list').screenshot({ path: `${SCREENSHOTS}/mesh-traces.png` });
    await row.getByRole('link').click();
    await page.getByTestId('delegation-tree').waitFor();

    const hops = page.getByTestId('hop');
    await expect(hops.count()).resolves.toBe(3);
    // The root: agent A at depth 0, admitted, its own spend.
    const root = hops.nth(0);
    expect(await root.locator('.hop').first().textContent()).toMatch(/agent A.*depth 0.*completed.*spent \$0\.01/);
    expect(await root.getByTestId('hop-agent-id').first().getAttribute('title')).toBe(traced.a.agentId);
    // A -> B, admitted and spent; A -> B again, refused by B's budget: reason, stage and the budget's standing.
    const served = page.locator('[data-testid="hop"][data-outcome="completed"] > .hop').filter({ hasText: 'agent B' });
    expect(await served.textContent()).toMatch(/depth 1.*completed.*spent \$0\.03/);
    expect(await served.getByTestId('hop-agent-id').getAttribute('title')).toBe(traced.b.agentId);
    const refused = page.locator('[data-testid="hop"][data-outcome="rejected"] > .hop');
    expect(await refused.getByTestId('hop-reason').textContent()).toContain('BUDGET_EXCEEDED by budget (usd)');
    expect(await refused.getByTestId('budget-standing').textContent()).toContain('budget usd: $0.03 of $0.05');
    expect(await refused.locator('[data-stage="budget"]').getAttribute('data-decision')).toBe('rejected');
    // The trace's spend (A 0.01 + B 0.03) and its refusals; the waterfall draws every span.
    expect(await page.getByTestId('trace-spent').textContent()).toContain('$0.04');
    expect(await page.getByTestId('trace-refusals').textContent()).toContain('agent B: BUDGET_EXCEEDED');
    await expect(page.getByTestId('waterfall-row').count()).resolves.toBe(summary?.spanCount);
    await page.screenshot({ path: `${SCREENSHOTS}/mesh-trace.png`, fullPage: true });
    await page.close();
  });

  it('lists the registry’s two enrolled agents with their health, and opens one in the agent view', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    await page.goto(`${consoleUrl}/#/mesh`);
    const rows = page.getByTestId('registry-agent');
    await rows.nth(1).waitFor();
    await expect(rows.count()).resolves.toBe(2);
    const ids = await Promise.all([0, 1].map((i) => rows.nth(i).getAttribute('data-agent-id')));
    expect(ids.sort()).toEqual(echoes.map((echo) => echo.agentId).sort());
    // The prober's verdict arrives within a round or two (the view polls).
    await page.getByTestId('registry-health').filter({ hasText: 'up' }).nth(1).waitFor({ timeout: 30_000 });
    await page.getByTestId('registry-agents').screenshot({ path: `${SCREENSHOTS}/mesh-registry.png` });

    const echo = echoes[0] as EchoAgent;
    await page.locator(`[data-agent-id="${echo.agentId}"]`).getByTestId('registry-open').click();
    await page.getByTestId('agent-view').waitFor();
    expect(await page.getByTestId('agent-url').inputValue()).toBe(echo.url);
    await page.getByTestId('allow-loopback').check();
    await page.getByTestId('agent-open').click();
    await expect(page.getByTestId('verdict-agent-id').textContent()).resolves.toContain(echo.agentId);
    await page.close();
  });

  it('lets the relay reach a registry-listed origin nobody entered, and no other', async () => {
    const relay = (url: string) =>
      fetch(`${consoleUrl}/api/relay/forward`, { headers: { 'x-a2a-console-token': TOKEN, 'x-a2a-relay-url': url } });
    const listed = echoes[1] as EchoAgent;
    const card = await relay(`${listed.url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    expect(((await card.json()) as { name: string }).name).toBeTruthy();
    const unlisted = await relay(`${traced.b.url}/.well-known/agent-card.json`);
    expect(unlisted.status).toBe(403);
  });
});
