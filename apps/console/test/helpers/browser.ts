import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const UI_ROOT = fileURLToPath(new URL('../../dist/ui', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../../../docs/console', import.meta.url));

/**
 * Debian's Chromium through playwright-core. Missing, the suite fails (never skips): the console's
 * promises are only kept if a real browser runs them.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the console's browser tests need Debian's chromium. Install it: apt-get update && apt-get install -y chromium`,
    );
  }
  if (!existsSync(`${UI_ROOT}/index.html`)) {
    throw new Error(`the console UI is not built (${UI_ROOT}): run pnpm --filter @a2aplane/a2a-console build`);
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}
