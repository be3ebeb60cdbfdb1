#!/usr/bin/env node
// The console's two goals, measured from the production build (dist/ui):
//   - its JavaScript, gzip -9 per file: what the first page load fetches (the entry and the chunks
//     index.html preloads) and everything (lazy chunks too); the goal is under 150 KB in all;
//   - with --paint: the first meaningful paint (the `console:ready` mark: the first frame showing
//     the agent view) and the first contentful paint, in Debian's Chromium, served by the console's
//     own server on 127.0.0.1, median of N cold loads (each in a new browser context); the goal is under 1 s.
// Usage: node scripts/measure.mjs [--paint] [--runs N] [--json] [--check]
//   --check exits 1 when the JS is over budget (the build runs it so).
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const UI = fileURLToPath(new URL('../dist/ui', import.meta.url));
const BUDGET_BYTES = 150 * 1024;
const args = process.argv.slice(2);
const runsIndex = args.indexOf('--runs');
const runs = runsIndex === -1 ? 7 : Number(args[runsIndex + 1]);

export function measureSize(ui = UI) {
  const assets = join(ui, 'assets');
  const html = readFileSync(join(ui, 'index.html'), 'utf8');
  const initialFiles = new Set([...html.matchAll(/(?:src|href)="\.\/assets\/([^"]+\.js)"/g)].map((m) => m[1]));
  let total = 0;
  let initial = 0;
  const files = readdirSync(assets).filter((name) => name.endsWith('.js'));
  for (const name of files) {
    const gzip = gzipSync(readFileSync(join(assets, name)), { level: 9 }).length;
    total += gzip;
    if (initialFiles.has(name)) initial += gzip;
  }
  return { files: files.length, initialGzipBytes: initial, totalGzipBytes: total, budgetBytes: BUDGET_BYTES };
}

async function measurePaint() {
  const { chromium } = await import('playwright-core');
  const { createConsoleServer } = await import('../dist/server/index.js');
  const server = createConsoleServer({ uiRoot: UI });
  const url = await server.listen(0);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const ready = [];
  const fcp = [];
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${url}/#/agent`, { waitUntil: 'load' });
      await page.waitForFunction(() => performance.getEntriesByName('console:ready').length > 0);
      const marks = await page.evaluate(() => ({
        ready: performance.getEntriesByName('console:ready')[0]?.startTime ?? Number.NaN,
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      }));
      ready.push(marks.ready);
      fcp.push(marks.fcp);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  return { runs, readyMs: Math.round(median(ready)), fcpMs: Math.round(median(fcp)), maxReadyMs: Math.round(Math.max(...ready)) };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const size = measureSize();
const paint = args.includes('--paint') ? await measurePaint() : undefined;
const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(' ');
if (args.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ size, paint, load })}\n`);
} else {
  process.stdout.write(
    `console JS (gzip -9): first load ${kb(size.initialGzipBytes)}, all ${size.files} chunks ${kb(size.totalGzipBytes)} (goal < ${kb(BUDGET_BYTES)})\n`,
  );
  if (paint)
    process.stdout.write(
      `first meaningful paint ${paint.readyMs} ms (FCP ${paint.fcpMs} ms, worst ${paint.maxReadyMs} ms; median of ${paint.runs}; goal < 1000 ms; load ${load})\n`,
    );
}
if (args.includes('--check') && size.totalGzipBytes > BUDGET_BYTES) {
  process.stderr.write(`console JS is over its budget: ${kb(size.totalGzipBytes)} > ${kb(BUDGET_BYTES)}\n`);
  process.exit(1);
}
