import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { goalTable, kb } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

type Measured = {
  size: { files: number; initialGzipBytes: number; totalGzipBytes: number; budgetBytes: number };
  paint: { runs: number; readyMs: number; fcpMs: number; maxReadyMs: number };
  load: string;
};

/**
 * The console's goals (issue 39): its JavaScript under 150 KB gzip, and the first meaningful paint under 1 s from the
 * production build served by its own server, in Debian's Chromium. The figures come from apps/console/scripts/measure.mjs
 * (`pnpm --filter @a2aplane/a2a-console measure`), run on the build `pnpm bench` made first.
 */
export async function runConsole(options: RunOptions): Promise<SuiteResult> {
  const args = ['scripts/measure.mjs', '--paint', '--json', '--runs', String(options.quick ? 3 : 9)];
  const cwd = fileURLToPath(new URL('../../../console', import.meta.url));
  const measured = JSON.parse(execFileSync(process.execPath, args, { cwd, encoding: 'utf8' })) as Measured;
  const { size, paint } = measured;
  const markdown = [
    goalTable([
      [
        `console JS, all ${size.files} chunks (gzip -9)`,
        kb(size.totalGzipBytes),
        `< ${kb(size.budgetBytes)}`,
        size.totalGzipBytes < size.budgetBytes,
      ],
      [`first meaningful paint (median of ${paint.runs} cold loads)`, `${paint.readyMs} ms`, '< 1000 ms', paint.readyMs < 1000],
    ]),
    '',
    `Console JS on first load ${kb(size.initialGzipBytes)} (gzip -9); first contentful paint ${paint.fcpMs} ms (median); slowest first meaningful paint ${paint.maxReadyMs} ms. The production build (\`dist/ui\`) served by the console's own server on 127.0.0.1, loaded in Debian's Chromium (headless), each load in a fresh browser context (no cache). "First meaningful paint" is the \`console:ready\` mark: the first animation frame after the agent view rendered. Load average during the run: ${measured.load}.`,
  ].join('\n');
  return { markdown, data: measured };
}
